# FAIL lines are refused by the plugin itself; kernel refusals (OUTPUT,
# other protocols than TCP) are checked by tests/net/plugin_roundtrip.sh.
:INPUT,FORWARD
-p tcp -j TARPIT;=;OK
-j TARPIT;=;OK
-j TARPIT --reset;=;OK
-p tcp -j TARPIT --tarpit;-p tcp -j TARPIT;OK
-p tcp -j TARPIT --honeypot;=;OK
-p tcp -j TARPIT --reset;=;OK
-p tcp -j TARPIT --tarpit --honeypot;;FAIL
-p tcp -j TARPIT --honeypot --tarpit;;FAIL
-p tcp -j TARPIT --honeypot --reset;;FAIL
-p tcp -j TARPIT --reset --reset;;FAIL
-p tcp -j TARPIT --bogus;;FAIL
-p tcp -j TARPIT --stall;=;OK
-p tcp -j TARPIT --stall --tarpit;;FAIL
-p tcp -j TARPIT --reset --stall;;FAIL
