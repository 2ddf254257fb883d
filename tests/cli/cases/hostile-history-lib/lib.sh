# Shared by the hostile-history cases (sourced by their setup; not a case itself):
# a set "demo" with three versions v1 <- v2 <- v3.
$EVALSET init demo >/dev/null
$EVALSET add demo --text "How do I rotate an API key?" --unanswerable >/dev/null
$EVALSET tag demo v1 >/dev/null
$EVALSET add demo --text "Can I pay by invoice?" --unanswerable >/dev/null
EVALSET_NOW=2026-11-29T12:00:01Z $EVALSET tag demo v2 >/dev/null
$EVALSET add demo --text "Where are invoices kept?" --unanswerable >/dev/null
EVALSET_NOW=2026-11-29T12:00:02Z $EVALSET tag demo v3 >/dev/null
