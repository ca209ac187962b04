#!/usr/bin/env bash
# `small report --html` in a real browser: Debian's headless Chromium loads the
# page from file:// (no network: the page's Content-Security-Policy allows none,
# and the browser runs with networking features off), the DOM it built is
# checked for the tasks, their statuses, the findings, the graph and a safe
# rendering of hostile text, and a screenshot is kept (build/report.png).
# Usage: report_test.sh SMALL_BINARY OUT_DIR
set -euo pipefail
SMALL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT="$2"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$CHROMIUM" ]; then
  [ "${CI:-}" != "true" ] || { echo "FAIL: chromium not found (scripts/setup.sh installs it with the tests)"; exit 1; }
  echo "SKIP: chromium not found"; exit 77
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT"
cd "$TMP"
git init -q
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
"$SMALL" init --intent "Ship the greeter" --no-agents >/dev/null
"$SMALL" plan --title task-1 "Parse the flags" --add "Print the greeting" --add 'Say <script>alert(1)</script> & "bye"' >/dev/null
"$SMALL" plan --depends task-3:task-2 >/dev/null
"$SMALL" checkpoint --task task-1 --status completed --evidence "unit tests pass" \
  --commit 0123456789abcdef0123456789abcdef01234567 >/dev/null
"$SMALL" progress add --task task-2 --status in_progress --evidence "see the review" --link "https://example.com/pr/7" >/dev/null
"$SMALL" progress add --task task-2 --status in_progress --evidence "a bad link" --link "javascript:alert(2)" >/dev/null || true
# A finding: the handoff still names the older plan (HANDOFF-STALE, a warning of --strict).
"$SMALL" report --html -o report.html --all >/dev/null

FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-default-apps --user-data-dir="$TMP/profile")
"$CHROMIUM" "${FLAGS[@]}" --dump-dom "file://$TMP/report.html" > dom.html 2> chromium.log
"$CHROMIUM" "${FLAGS[@]}" --window-size=1400,1700 --hide-scrollbars --screenshot="$OUT/report.png" \
  "file://$TMP/report.html" >> chromium.log 2>&1

fail() { echo "FAIL: $*"; exit 1; }
python3 - dom.html <<'PY' || fail "the DOM misses what the page should show"
import sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cards, self.findings, self.svg, self.scripts, self.anchors, self.timelines = {}, [], 0, 0, [], []
        self.text = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article" and "card" in a.get("class", ""):
            self.cards[a["data-task"]] = a["data-status"]
        if tag == "tr" and a.get("class") == "finding":
            self.findings.append(a["data-rule"])
        if tag == "svg":
            self.svg += 1
        if tag == "script":
            self.scripts += 1
        if tag == "a":
            self.anchors.append(a.get("href", ""))
        if tag == "details" and "task-timeline" in a.get("class", ""):
            self.timelines.append(a["data-task"])
    def handle_data(self, data):
        self.text.append(data)

d = Dom()
d.feed(open(sys.argv[1]).read())
text = "".join(d.text)
problems = []
want = {"task-1": "completed", "task-2": "in_progress", "task-3": "pending"}
if d.cards != want: problems.append("cards %r, want %r" % (d.cards, want))
if "HANDOFF-STALE" not in d.findings: problems.append("findings %r lack HANDOFF-STALE" % d.findings)
if d.svg < 1: problems.append("no inline SVG graph")
if d.scripts: problems.append("the hostile title became a script element")
if "Say <script>alert(1)</script> & \"bye\"" not in text: problems.append("the hostile title is not shown as text")
if "https://example.com/pr/7" not in d.anchors: problems.append("anchors %r lack the evidence link" % d.anchors)
if any(h.startswith("javascript:") for h in d.anchors): problems.append("a javascript: link became an anchor")
if "0123456789ab" not in text: problems.append("the commit is not shown")
if d.timelines[:2] != ["task-1", "task-2"]: problems.append("timelines %r" % d.timelines)
if "Branches and work trees" not in text: problems.append("--all: no branches section")
if problems:
    print("\n".join(problems))
    sys.exit(1)
PY
[ -s "$OUT/report.png" ] || fail "no screenshot"
if grep -qiE "ERR_(NAME|CONNECTION|INTERNET)|net::" chromium.log; then
  grep -iE "ERR_|net::" chromium.log | head -5
  fail "the page made the browser reach the network"
fi
echo "PASS: the report loads in Chromium $("$CHROMIUM" --version 2>/dev/null | awk '{print $2}') with tasks, statuses, findings and graph; screenshot $OUT/report.png"
