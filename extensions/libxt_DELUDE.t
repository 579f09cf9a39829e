# FAIL lines are refused by the plugin itself; kernel refusals (OUTPUT,
# non-TCP) are checked by tests/net/plugin_roundtrip.sh.
:INPUT,FORWARD
-p tcp -j DELUDE;=;OK
-p tcp --dport 1:1000 -j DELUDE;-p tcp -m tcp --dport 1:1000 -j DELUDE;OK
-p tcp -j DELUDE --tarpit;;FAIL
-p tcp -j DELUDE --banner;=;OK
-p tcp -j DELUDE --banner --banner;;FAIL
