# FAIL lines are refused by the plugin itself; kernel refusals (OUTPUT,
# non-TCP) are checked by tests/net/plugin_roundtrip.sh.
# All portscan rules of a network namespace share one --mark-mask: the
# kernel refuses another mask while such rules exist.
:INPUT,FORWARD
-p tcp -m portscan --stealth;=;OK
-p tcp -m portscan --synscan;=;OK
-p tcp -m portscan --cnscan;=;OK
-p tcp -m portscan --grscan;=;OK
-p tcp -m portscan --stealth --synscan --cnscan --grscan;=;OK
-p tcp -m portscan --grscan --synscan;-p tcp -m portscan --synscan --grscan;OK
-p tcp -m portscan --synscan --mark-mask 0xf8000000;-p tcp -m portscan --synscan;OK
-p tcp -m portscan --synscan --mark-mask 0x1f;=;OK
-p tcp -m portscan --stealth --mark-mask 31;-p tcp -m portscan --stealth --mark-mask 0x1f;OK
-p tcp -m portscan --synscan -j DROP;=;OK
-p tcp -m portscan --mirai;=;OK
-p tcp -m portscan --mirai --stealth;-p tcp -m portscan --stealth --mirai;OK
-p tcp -m lscan --stealth --synscan --cnscan --grscan --mirai;=;OK
-p tcp -m lscan --synscan;=;OK
-p tcp -m lscan --cnscan --mark-mask 0x1f;=;OK
-p tcp -m portscan;;FAIL
-p tcp -m portscan --mark-mask 0x1f;;FAIL
-p tcp -m portscan --synscan --mark-mask 0;;FAIL
-p tcp -m portscan --synscan --mark-mask 0xf0000000;;FAIL
-p tcp -m portscan --synscan --mark-mask 0x17;;FAIL
-p tcp -m portscan --synscan --mark-mask 0x100000000;;FAIL
-p tcp -m portscan ! --synscan;;FAIL
-p tcp -m portscan --synscan --synscan;;FAIL
-p tcp -m portscan --mirai --mirai;;FAIL
-p tcp -m lscan;;FAIL
-p tcp -m lscan ! --stealth;;FAIL
-p tcp -m lscan --synscan --mark-mask 0x17;;FAIL
