#!/usr/bin/python3
# Parses a Prometheus text exposition with the reference client's own parser
# (Debian's python3-prometheus-client, installed by tools/setup.sh) and
# prints every sample as one JSON line: [name, {label: value}, value].
# The file is read as strict UTF-8: a byte that is not UTF-8 fails, as it
# fails Prometheus itself. Exit 0 when it parses; 1 with the reason; 2
# when the parser is missing (the test fails then, it does not skip).
# Usage: /usr/bin/python3 prometheus-parse.py FILE
import json
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError as error:
    print(f"prometheus-parse: {error}: install python3-prometheus-client (make setup)", file=sys.stderr)
    sys.exit(2)

try:
    with open(sys.argv[1], encoding="utf-8", errors="strict") as exposition:
        text = exposition.read()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            print(json.dumps([sample.name, dict(sample.labels), sample.value], ensure_ascii=True))
except (UnicodeDecodeError, ValueError) as error:
    print(f"prometheus-parse: {error}", file=sys.stderr)
    sys.exit(1)
