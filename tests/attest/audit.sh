#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The audit command: decision logs from files, stdin and gzip-compressed
# rotations summarized; malformed lines named by FILE:LINE, counted and
# never echoed; --json for machines; exit codes.
set -eu
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

# rec PROTOCOL HOST PORT DECISION REASON [EXTRA]: one record, as the proxy
# writes it.
rec() {
	printf '{"ts":"2026-12-02T15:30:00.123Z","protocol":"%s","host":"%s","port":%s,"decision":"%s","reason":"%s"%s}\n' \
	    "$1" "$2" "$3" "$4" "$5" "${6:-}"
}

# close_rec CONN PROTOCOL HOST PORT OUT IN MS [EXTRA]: the line that
# ends an allowed connection (SPEC 5).
close_rec() {
	printf '{"ts":"2026-12-02T15:30:05.000Z","event":"close","conn":%s,"protocol":"%s","host":"%s","port":%s,"bytes_out":%s,"bytes_in":%s,"ms":%s%s}\n' \
	    "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:-}"
}

# json_get FILE EXPR: a value of the JSON summary in FILE, by a Python
# expression over j.
json_get() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# expect_json NAME FILE EXPR WANT
expect_json() {
	got=$(json_get "$2" "$3" 2>&1) || got="(no JSON: $got)"
	if [ "$got" = "$4" ]; then
		ok "$1"
	else
		not_ok "$1" "$3 = $got, want $4" "$(head -c 600 "$2")"
	fi
}

# Two logs: a.log 4 records (3 allow), b.log 3 records (all deny).
{
	rec http_connect api.example.com 443 allow allow_rule ',"addr":"93.184.216.34","run":"r1"'
	rec http_connect api.example.com 443 allow allow_rule ',"addr":"93.184.216.34","run":"r1"'
	rec http cdn.example.com 80 allow default_allow ',"run":"r2"'
	rec socks5 evil.example 443 deny no_allow_rule
} > "$TMP/a.log"
{
	rec http "" 0 deny invalid_request
	rec socks5 10.0.0.1 22 deny private_address
	rec http_connect evil.example 443 deny no_allow_rule
} > "$TMP/b.log"

expect_rc "audit of one log exits 0" 0 "$EGRESSD" audit "$TMP/a.log"
expect_grep "records counted" "$TMP/out" '^records 4 \(malformed 0\)$'
expect_grep "runs counted" "$TMP/out" '^runs 2$'
expect_grep "decisions counted" "$TMP/out" '^decisions: allow 3, deny 1$'
expect_grep "by reason" "$TMP/out" '^  allow_rule +2$'
expect_grep "by reason, default" "$TMP/out" '^  default_allow +1$'
expect_grep "by protocol" "$TMP/out" '^  http_connect +2$'
expect_grep "top allowed host" "$TMP/out" '^  2  api\.example\.com$'
expect_grep "top denied host" "$TMP/out" '^  1  evil\.example$'
if [ -s "$TMP/err" ]; then
	not_ok "a clean log says nothing on stderr" "$(head -c 400 "$TMP/err")"
else
	ok "a clean log says nothing on stderr"
fi

expect_rc "two logs" 0 "$EGRESSD" audit "$TMP/a.log" "$TMP/b.log"
expect_grep "two logs: records" "$TMP/out" '^records 7 \(malformed 0\)$'
expect_grep "two logs: decisions" "$TMP/out" '^decisions: allow 3, deny 4$'
expect_grep "two logs: hosts add up" "$TMP/out" '^  2  evil\.example$'
expect_grep "two logs: the empty host" "$TMP/out" '^  1  ""$'

cat "$TMP/a.log" "$TMP/b.log" > "$TMP/ab.log"
expect_rc "stdin when no log is named" 0 sh -c '"$1" audit < "$2"' sh \
    "$EGRESSD" "$TMP/ab.log"
expect_grep "stdin: records" "$TMP/out" '^records 7 \(malformed 0\)$'
expect_rc "- is stdin" 0 sh -c '"$1" audit "$3" - < "$2"' sh \
    "$EGRESSD" "$TMP/b.log" "$TMP/a.log"
expect_grep "- is stdin, among files" "$TMP/out" '^records 7 \(malformed 0\)$'

# Rotated logs: one gzip-compressed, one of two gzip members, one plain.
gzip -c "$TMP/a.log" > "$TMP/decisions.log.2.gz"
gzip -c "$TMP/b.log" > "$TMP/two.gz"
gzip -c "$TMP/a.log" >> "$TMP/two.gz"
expect_rc "gzip and plain logs" 0 "$EGRESSD" audit "$TMP/decisions.log.2.gz" \
    "$TMP/b.log"
expect_grep "gzip and plain: records" "$TMP/out" '^records 7 \(malformed 0\)$'
expect_rc "two gzip members" 0 "$EGRESSD" audit "$TMP/two.gz"
expect_grep "two gzip members: records" "$TMP/out" '^records 7 \(malformed 0\)$'
expect_rc "gzip on stdin" 0 sh -c '"$1" audit < "$2"' sh "$EGRESSD" \
    "$TMP/two.gz"
expect_grep "gzip on stdin: records" "$TMP/out" '^records 7 \(malformed 0\)$'

# A last line without its newline still counts.
{ cat "$TMP/a.log"; rec http x.example 80 deny deny_rule | tr -d '\n'; } \
    > "$TMP/nonl.log"
expect_rc "last line without a newline" 0 "$EGRESSD" audit "$TMP/nonl.log"
expect_grep "last line without a newline counts" "$TMP/out" \
    '^records 5 \(malformed 0\)$'

# Malformed lines: named, counted, skipped, never echoed.
{
	rec http a.example 80 allow allow_rule
	printf 'Authorization: Bearer SECRET-TOKEN-1234\n'
	rec http b.example 80 deny deny_rule
	printf '{"ts":"t","protocol":"http","host":"h","port":80,"decision":"deny","reason":"\\u001b]0;SECRET-TITLE\\u0007"}\n'
	printf '\n'
	printf '{"ts":"t","protocol":"http","host":"h","port":70000,"decision":"deny","reason":"deny_rule"}\n'
	rec socks5 c.example 1080 deny deny_rule ',"SECRET_KEY":"hunter2"'
	python3 -c 'import sys; sys.stdout.write("{\"x\":\"" + "A" * 100000 + "\"}\n")'
	printf '{"ts":"\033]0;SECRET-RAW\007\033[2J"}\n'
	rec http d.example 80 allow allow_rule
} > "$TMP/bad.log"
expect_rc "malformed lines do not change the exit status" 0 \
    "$EGRESSD" audit "$TMP/bad.log"
expect_grep "valid lines still counted" "$TMP/out" '^records 3 \(malformed 7\)$'
expect_grep "not JSON, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:2: malformed record: not JSON"
expect_grep "unknown reason, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:4: malformed record: unknown reason"
expect_grep "empty line, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:5: malformed record: empty line"
expect_grep "port, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:6: malformed record: port out of range"
expect_grep "unknown key, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:7: malformed record: unknown key$"
expect_grep "long line, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:8: malformed record: line too long"
expect_grep "raw escapes, by FILE:LINE" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log:9: malformed record: not JSON"
n=$(grep -c 'malformed record' "$TMP/err" || true)
if [ "$n" -eq 7 ]; then
	ok "one stderr line per malformed line"
else
	not_ok "one stderr line per malformed line" "$n lines:" "$(cat "$TMP/err")"
fi
cat "$TMP/out" "$TMP/err" > "$TMP/all"
expect_no_grep "no secret echoed" "$TMP/all" SECRET
expect_no_grep "no hunter2 echoed" "$TMP/all" hunter2
if LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$TMP/all"; then
	not_ok "no control bytes in the output" "$(od -c "$TMP/all" | head -5)"
else
	ok "no control bytes in the output"
fi
expect_rc "malformed lines on stdin" 0 sh -c '"$1" audit < "$2"' sh \
    "$EGRESSD" "$TMP/bad.log"
expect_grep "stdin malformed lines are named (stdin)" "$TMP/err" \
    '^harn-egressd: \(stdin\):2: malformed record: '
gzip -c "$TMP/bad.log" > "$TMP/bad.log.1.gz"
expect_rc "malformed lines in a gzip log" 0 "$EGRESSD" audit "$TMP/bad.log.1.gz"
expect_grep "gzip malformed lines by line" "$TMP/err" \
    "^harn-egressd: $TMP/bad.log.1.gz:6: malformed record: port"

# A forged host in a valid record is escaped for the terminal.
printf '{"ts":"t","protocol":"http","host":"x\\u001b[2Jy","port":80,"decision":"deny","reason":"deny_rule"}\n' \
    > "$TMP/esc.log"
expect_rc "forged host" 0 "$EGRESSD" audit "$TMP/esc.log"
expect_grep "forged host escaped" "$TMP/out" '^  1  x\\x1b\[2Jy$'
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/out"; then
	not_ok "no raw escape from a forged host"
else
	ok "no raw escape from a forged host"
fi

# --json: one object with the numbers.
expect_rc "--json" 0 "$EGRESSD" audit --json "$TMP/a.log" "$TMP/b.log" \
    "$TMP/bad.log"
cp "$TMP/out" "$TMP/j"
expect_json "--json records" "$TMP/j" 'j["records"]' 10
expect_json "--json malformed" "$TMP/j" 'j["malformed"]' 7
expect_json "--json runs" "$TMP/j" 'j["runs"]' 2
expect_json "--json allow" "$TMP/j" 'j["decisions"]["allow"]' 5
expect_json "--json deny" "$TMP/j" 'j["decisions"]["deny"]' 5
expect_json "--json by reason" "$TMP/j" 'j["by_reason"]["no_allow_rule"]' 2
expect_json "--json zero reasons listed" "$TMP/j" \
    'j["by_reason"]["connect_timeout"]' 0
expect_json "--json by protocol" "$TMP/j" 'j["by_protocol"]["socks5"]' 2
expect_json "--json top allowed" "$TMP/j" \
    '[(h["host"], h["count"]) for h in j["top_allowed"]]' \
    "[('api.example.com', 2), ('a.example', 1), ('cdn.example.com', 1), ('d.example', 1)]"
expect_json "--json top denied first" "$TMP/j" 'j["top_denied"][0]' \
    "{'count': 2, 'host': 'evil.example'}"

expect_rc "--top 1" 0 "$EGRESSD" audit --top 1 --json "$TMP/a.log" "$TMP/b.log"
expect_json "--top 1: one allowed host" "$TMP/out" \
    '[(h["host"], h["count"]) for h in j["top_allowed"]]' \
    "[('api.example.com', 2)]"
expect_json "--top 1: one denied host" "$TMP/out" 'len(j["top_denied"])' 1
expect_rc "--top 1, text" 0 "$EGRESSD" audit --top 1 "$TMP/b.log"
n=$(grep -c '^  1  ' "$TMP/out" || true)
if [ "$n" -eq 1 ]; then
	ok "--top 1, text: one host"
else
	not_ok "--top 1, text: one host" "$(cat "$TMP/out")"
fi

# --html: one self-contained page, well-formed, naming no URL, with every
# figure equal to what --json says; forged text escaped.
{
	rec http_connect pypi.test 443 allow report_only ',"would":"no_allow_rule","run":"r1","pid":41,"exe":"/usr/bin/curl"'
	rec socks5 files.test 443 allow allow_rule ',"run":"r1","pid":42,"exe":"/usr/bin/python3<b>\"x\""'
	rec http '<script>alert(1)</script>' 80 deny no_allow_rule ',"run":"r1","pid":41,"exe":"/usr/bin/curl"'
	rec http 'x\u001b[2Jy' 80 deny deny_rule ''
	rec direct '' 5432 deny not_through_proxy ',"addr":"127.0.0.1","count":3,"run":"r1","pid":43,"exe":"/usr/bin/psql"'
	printf '{"ts":"2026-12-02T15:31:10.000Z","protocol":"http","host":"late.test","port":80,"decision":"allow","reason":"allow_rule"}\n'
	printf '{"ts":"2026-12-02T15:45:00.000Z","protocol":"http","host":"later.test","port":80,"decision":"deny","reason":"dns_failure"}\n'
	rec http_connect dl.test 443 allow allow_rule ',"addr":"127.0.0.1","conn":4,"run":"r1","pid":44,"exe":"/usr/bin/wget<i>"'
	close_rec 4 http_connect dl.test 443 300 70000 12 ',"run":"r1","pid":44'
	close_rec 9 socks5 '<b>x</b>' 443 5 6 1 ''
} >"$TMP/h.log"
cat "$TMP/a.log" "$TMP/b.log" >>"$TMP/h.log"
expect_rc "--html writes the page" 0 "$EGRESSD" audit --html "$TMP/page.html" \
    "$TMP/h.log"
expect_rc "--json of the same log" 0 "$EGRESSD" audit --json "$TMP/h.log"
cp "$TMP/out" "$TMP/h.json"
if $PY - "$TMP/page.html" "$TMP/h.json" >"$TMP/html.out" 2>&1 <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding="utf-8").read()
j = json.load(open(sys.argv[2]))
bad = []
# Self-contained: nothing fetched, nothing run.
low = text.lower()
for needle in ("<script", "http:", "https:", "//", "url(", "@import", "<link",
               "<img", "<iframe", "<object", "<embed", " src=", " href=",
               "javascript:", " on"):
    if needle == " on":
        if re.search(r'\son[a-z]+\s*=', low):
            bad.append("an event handler attribute")
        continue
    if needle in low:
        bad.append("contains %r" % needle)
if "\x1b" in text:
    bad.append("a raw escape")
root = ET.fromstring(text.split("\n", 1)[1])   # after <!DOCTYPE html>
svgs = root.findall(".//svg")
if not svgs:
    bad.append("no inline SVG")
# Names on the page are as on a terminal: printable ASCII, the rest \xNN.
def esc(v):
    return "".join(chr(b) if 0x20 < b < 0x7f and b != 0x5c else "\\x%02x" % b
                   for b in v.encode())
def entry(lst, field, name):
    for e in lst:
        if esc(e.get(field, "")) == name:
            return e
    bad.append("no %s %r in the JSON" % (field, name))
    return {}
n = 0
for el in root.iter("span"):
    key = el.get("data-key")
    if key is None:
        continue
    name, parent, got = el.get("data-name"), el.get("data-parent"), int(el.text)
    if key in ("records", "malformed", "runs", "owned"):
        want = j[key]
    elif key in ("decisions", "by_reason"):
        want = j[key][name]
    elif key in ("top_allowed", "top_denied"):
        want = entry(j[key], "host", name).get("count")
    elif key == "report_only":
        e = [x for x in j["report_only"] if esc("%s:%d" % (x["host"], x["port"])) == name]
        want = e[0]["count"] if e else None
    elif key in ("by_exe.allow", "by_exe.deny"):
        want = entry(j["by_exe"], "exe", name).get(key.split(".")[1])
    elif key == "by_exe.top_hosts":
        want = entry(entry(j["by_exe"], "exe", parent).get("top_hosts", []), "host", name).get("count")
    elif key == "direct":
        want = entry(j["direct"], "exe", name).get("count")
    elif key == "direct.endpoints":
        want = entry(entry(j["direct"], "exe", parent).get("endpoints", []), "endpoint", name).get("count")
    elif key.startswith("bytes.by_host.") or key.startswith("bytes.by_exe."):
        _, lst, field = key.split(".")
        want = entry(j["bytes"][lst], "host" if lst == "by_host" else "exe", name).get(field)
    elif key.startswith("bytes."):
        want = j
        for k in key.split("."):
            want = want[k]
    else:
        bad.append("unknown data-key %s" % key)
        continue
    if got != want:
        bad.append("%s %s %s: page %s, --json %s" % (key, parent, name, got, want))
    n += 1
if n < 25:
    bad.append("only %d figures" % n)
if not any(el.get("data-key") == "bytes.by_exe.in" and el.get("data-name") == "/usr/bin/wget<i>" and el.text == "70000"
           for el in root.iter("span")):
    bad.append("no bytes.by_exe.in 70000 for /usr/bin/wget<i>")
for want in ("<script>alert(1)</script>", '/usr/bin/python3<b>"x"', "<b>x</b>", "wget<i>"):
    if want in text:
        bad.append("unescaped %r" % want)
print("; ".join(bad) or "%d figures equal --json" % n)
sys.exit(1 if bad else 0)
EOF
then
	ok "--html: well-formed, no URL or script, $(cat "$TMP/html.out")"
else
	not_ok "--html: well-formed, no URL or script, figures equal --json" \
	    "$(head -c 900 "$TMP/html.out")"
fi
expect_grep "--html: escaped forged host" "$TMP/page.html" '&lt;script&gt;alert\(1\)&lt;/script&gt;'
expect_rc "--html with --json is a usage error" 2 "$EGRESSD" audit --json \
    --html "$TMP/x.html" "$TMP/h.log"
expect_rc "--html into a missing directory exits 1" 1 "$EGRESSD" audit \
    --html "$TMP/none/x.html" "$TMP/h.log"
# A real browser, where one is installed: it renders the page to a PNG
# and says nothing on its console.
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	skip "--html in headless Chromium: chromium is not installed (apt-get install chromium)"
else
	rm -f "$TMP/page.png"
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu \
	    --no-first-run --user-data-dir="$TMP/chrome" --enable-logging=stderr \
	    --v=0 --window-size=1000,2000 --screenshot="$TMP/page.png" \
	    "file://$TMP/page.html" >"$TMP/chrome.out" 2>&1
	if [ -s "$TMP/page.png" ] && ! grep -q 'CONSOLE' "$TMP/chrome.out"; then
		ok "--html in headless Chromium: rendered to a PNG, no console message"
	else
		not_ok "--html in headless Chromium" \
		    "$(grep -i 'console\|error' "$TMP/chrome.out" | head -5)"
	fi
fi

# Close lines (SPEC 5): bytes summed by host and by program (the exe of
# the allow line with the same conn and run); records, not decisions.
{
	rec http_connect api.test 443 allow allow_rule ',"addr":"127.0.0.1","conn":1,"run":"r1","pid":7,"exe":"/usr/bin/curl"'
	rec http files.test 80 allow allow_rule ',"addr":"127.0.0.1","conn":2,"run":"r1","pid":8,"exe":"/usr/bin/python3"'
	rec http files.test 80 allow allow_rule ',"addr":"127.0.0.1","conn":2,"run":"r1","pid":8,"exe":"/usr/bin/python3"'
	rec socks5 api.test 443 deny no_allow_rule ',"run":"r1","pid":7,"exe":"/usr/bin/curl"'
	close_rec 1 http_connect api.test 443 1200 65000 40 ',"run":"r1","pid":7'
	close_rec 2 http files.test 80 300 5000 20 ',"run":"r1","pid":8'
	close_rec 1 transparent 10.1.2.3 5432 10 20 5 ''
	close_rec 3 socks5 api.test 443 -1 0 0 ''
	close_rec 3 dns api.test 53 1 1 1 ''
	rec http_connect x.test 443 deny deny_rule ',"conn":5'
} >"$TMP/c.log"
expect_rc "close lines: audit exits 0" 0 "$EGRESSD" audit "$TMP/c.log"
cp "$TMP/out" "$TMP/c.out"
expect_grep "close lines are records, bad ones malformed" "$TMP/c.out" '^records 7 \(malformed 3\)$'
expect_grep "close lines are not decisions" "$TMP/c.out" '^decisions: allow 3, deny 1$'
expect_grep "close lines: the totals" "$TMP/c.out" \
    '^bytes of closed connections: out 1510, in 70020, 3 connections, 65 ms$'
expect_grep "close lines: by host, most first" "$TMP/c.out" '^  out  1200  in 65000  conns 1  api\.test$'
expect_grep "close lines: by host, an address" "$TMP/c.out" '^  out    10  in    20  conns 1  10\.1\.2\.3$'
expect_grep "close lines: by program" "$TMP/c.out" '^  out   300  in  5000  conns 1  /usr/bin/python3$'
expect_grep "close lines: unattributed said" "$TMP/c.out" \
    '^bytes by program \(2 of 3 connections say which; unattributed: out 10, in 20, 1 connections\):$'
expect_grep "close line: negative bytes malformed" "$TMP/err" "^harn-egressd: $TMP/c.log:8: malformed record: .*below 0"
expect_grep "close line: protocol dns malformed" "$TMP/err" "^harn-egressd: $TMP/c.log:9: malformed record: .*protocol is not"
expect_grep "conn on a deny line malformed" "$TMP/err" "^harn-egressd: $TMP/c.log:10: malformed record: \"conn\" on a deny line"
expect_rc "close lines: --top 1" 0 "$EGRESSD" audit --top 1 "$TMP/c.log"
expect_grep "close lines: --top 1 says how many more" "$TMP/out" '^  \(2 more\)$'
expect_no_grep "close lines: --top 1 shows one host" "$TMP/out" 'conns 1  files\.test'
expect_rc "close lines: --json" 0 "$EGRESSD" audit --json "$TMP/c.log"
cp "$TMP/out" "$TMP/c.json"
expect_json "close lines: --json records" "$TMP/c.json" 'j["records"]' 7
expect_json "close lines: --json totals" "$TMP/c.json" \
    '[j["bytes"][k] for k in ("out", "in", "connections", "ms", "saturated")]' '[1510, 70020, 3, 65, False]'
expect_json "close lines: --json by host" "$TMP/c.json" \
    '[(e["host"], e["out"], e["in"], e["connections"], e["ms"]) for e in j["bytes"]["by_host"]]' \
    "[('api.test', 1200, 65000, 1, 40), ('files.test', 300, 5000, 1, 20), ('10.1.2.3', 10, 20, 1, 5)]"
expect_json "close lines: --json by program" "$TMP/c.json" \
    '[(e["exe"], e["out"], e["in"], e["connections"]) for e in j["bytes"]["by_exe"]]' \
    "[('/usr/bin/curl', 1200, 65000, 1), ('/usr/bin/python3', 300, 5000, 1)]"
expect_json "close lines: --json unattributed" "$TMP/c.json" \
    'j["bytes"]["unattributed"]' "{'connections': 1, 'in': 20, 'ms': 5, 'out': 10}"
expect_json "close lines: --json decisions unmoved" "$TMP/c.json" \
    '(j["decisions"], j["by_protocol"]["transparent"])' "({'allow': 3, 'deny': 1}, 0)"
expect_rc "close lines: --html" 0 "$EGRESSD" audit --html "$TMP/c.html" "$TMP/c.log"
expect_grep "close lines: --html by program" "$TMP/c.html" \
    'data-key="bytes\.by_exe\.in" data-name="/usr/bin/curl">65000</span>'
expect_grep "close lines: --html by host" "$TMP/c.html" \
    'data-key="bytes\.by_host\.out" data-name="files\.test">300</span>'

# Exit codes.
expect_rc "a missing log exits 1" 1 "$EGRESSD" audit "$TMP/a.log" \
    "$TMP/does-not-exist" "$TMP/b.log"
expect_grep "a missing log is named" "$TMP/err" \
    "^harn-egressd: $TMP/does-not-exist: No such file"
expect_grep "the others are still summarized" "$TMP/out" \
    '^records 7 \(malformed 0\)$'
expect_rc "a directory exits 1" 1 "$EGRESSD" audit "$TMP"
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$TMP/ab.log"; done | gzip -c > "$TMP/full.gz"
head -c $(($(wc -c < "$TMP/full.gz") / 2)) "$TMP/full.gz" > "$TMP/cut.gz"
expect_rc "a truncated gzip log exits 1" 1 "$EGRESSD" audit "$TMP/cut.gz"
expect_grep "a truncated gzip log is named" "$TMP/err" "^harn-egressd: $TMP/cut.gz: "
expect_rc "--top x is a usage error" 2 "$EGRESSD" audit --top x "$TMP/a.log"
expect_grep "--top x says why" "$TMP/err" 'top'
expect_rc "--top -1 is a usage error" 2 "$EGRESSD" audit --top -1 "$TMP/a.log"
expect_rc "an unknown option is a usage error" 2 "$EGRESSD" audit --bogus
expect_grep "usage is printed" "$TMP/err" 'usage: harn-egressd audit'

# --suggest --full: a whole policy check accepts, from files or stdin;
# nothing from a log that could not be read whole.
{
	rec http_connect pypi.test 443 allow report_only ',"would":"no_allow_rule","addr":"93.184.216.34"'
	rec http_connect git.corp.test 443 deny private_address ',"addr":"10.20.0.7"'
	rec http 127.0.0.1 8080 allow report_only ',"would":"no_allow_rule","addr":"127.0.0.1"'
} >"$TMP/full.log"
expect_rc "--suggest --full" 0 "$EGRESSD" audit --suggest --full "$TMP/full.log"
cp "$TMP/out" "$TMP/full.conf"
expect_rc "--suggest --full: check accepts it" 0 "$EGRESSD" check --policy "$TMP/full.conf"
expect_grep "--suggest --full: default deny" "$TMP/full.conf" '^default deny$'
expect_grep "--suggest --full: the exempt the private name needs" "$TMP/full.conf" '^exempt 10\.0\.0\.0/8$'
expect_grep "--suggest --full: ... with who needs it" "$TMP/full.conf" '^#   git\.corp\.test:443 \(10\.20\.0\.7\)$'
expect_grep "--suggest --full: the name" "$TMP/full.conf" '^allow git\.corp\.test:443  # '
expect_grep "--suggest --full: the literal, by itself" "$TMP/full.conf" '^allow 127\.0\.0\.1:8080  # '
expect_rc "--suggest --full on stdin" 0 sh -c '"$1" audit --suggest --full < "$2"' sh \
    "$EGRESSD" "$TMP/full.log"
if cmp -s "$TMP/out" "$TMP/full.conf"; then
	ok "--suggest --full on stdin: the same policy"
else
	not_ok "--suggest --full on stdin: the same policy" "$(diff "$TMP/out" "$TMP/full.conf" | head -5)"
fi
expect_rc "--suggest --full with a missing log exits 1" 1 "$EGRESSD" audit \
    --suggest --full "$TMP/full.log" "$TMP/does-not-exist"
if [ -s "$TMP/out" ]; then
	not_ok "--suggest --full with a missing log prints no policy" "$(head -c 300 "$TMP/out")"
else
	ok "--suggest --full with a missing log prints no policy"
fi
expect_rc "--full without --suggest is a usage error" 2 "$EGRESSD" audit --full "$TMP/full.log"
expect_grep "--full without --suggest says so" "$TMP/err" '^harn-egressd: audit: --full goes with --suggest$'
expect_rc "--suggest --full --json is a usage error" 2 "$EGRESSD" audit --suggest --full --json "$TMP/full.log"

# Empty input: zero totals, exit 0.
: > "$TMP/empty.log"
expect_rc "an empty log" 0 "$EGRESSD" audit "$TMP/empty.log"
expect_grep "an empty log: zero records" "$TMP/out" '^records 0 \(malformed 0\)$'
expect_grep "an empty log: zero decisions" "$TMP/out" '^decisions: allow 0, deny 0$'
expect_rc "empty stdin" 0 sh -c '"$1" audit --json < /dev/null' sh "$EGRESSD"
expect_json "empty stdin: zero records" "$TMP/out" 'j["records"]' 0
expect_json "empty stdin: no hosts" "$TMP/out" 'len(j["top_denied"])' 0

finish
