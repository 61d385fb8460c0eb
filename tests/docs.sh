#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The documentation a user reads first: README.md fits a first read, every
# relative link in README.md, ARCHITECTURE.md and docs/*.md names a file
# of the repository (and a heading there, for path#anchor), nothing names
# a path outside it, and every docs/ page is reachable from README.md.
set -eu
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

SRC=$top_srcdir
README_MAX=250

lines=$(wc -l <"$SRC/README.md")
if [ "$lines" -le "$README_MAX" ]; then
	ok "README.md has $lines lines (at most $README_MAX)"
else
	not_ok "README.md has at most $README_MAX lines" \
	    "it has $lines: move the detail into a docs/ page"
fi

# links.py ROOT FILE...: one line per bad link, "FILE:LINE: LINK: WHY".
cat >"$TMP/links.py" <<'EOF'
import os, re, sys

root = os.path.realpath(sys.argv[1])
inline = re.compile(r'\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
refdef = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$')
fence = re.compile(r'^\s{0,3}(```|~~~)')

def slugs(path):
    """GitHub's anchors for the headings of a markdown file."""
    out, seen, infence = set(), {}, False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if fence.match(line):
                infence = not infence
            if infence or not line.startswith('#'):
                continue
            text = line.lstrip('#').strip().lower()
            text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
            s = re.sub(r'[^\w\- ]', '', text).replace(' ', '-')
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else '%s-%d' % (s, n))
    return out

bad = 0
for name in sys.argv[2:]:
    path = os.path.join(root, name)
    infence = False
    with open(path, encoding='utf-8') as f:
        for num, line in enumerate(f, 1):
            if fence.match(line):
                infence = not infence
                continue
            if infence:
                continue
            found = inline.findall(line)
            m = refdef.match(line)
            if m:
                found.append(m.group(1))
            for link in found:
                if re.match(r'^[a-z][a-z0-9+.-]*:', link, re.I):
                    continue        # a URL, not a path in the repository
                target, _, anchor = link.partition('#')
                where = path if target == '' else os.path.normpath(
                    os.path.join(os.path.dirname(path), target))
                why = None
                real = os.path.realpath(where)
                if real != root and not real.startswith(root + os.sep):
                    why = 'outside the repository'
                elif not os.path.exists(where):
                    why = 'no such file'
                elif anchor and where.endswith('.md') and \
                        anchor not in slugs(where):
                    why = 'no heading with that anchor'
                if why:
                    print('%s:%d: %s: %s' % (name, num, link, why))
                    bad += 1
sys.exit(1 if bad else 0)
EOF

cd "$SRC"
pages=$(ls docs/*.md 2>/dev/null || true)
if [ -n "$pages" ]; then
	ok "docs/ holds pages: $(echo $pages)"
else
	not_ok "docs/ holds pages" "no docs/*.md"
fi
have=""
for f in README.md ARCHITECTURE.md $pages; do
	if [ -f "$f" ]; then
		have="$have $f"
	else
		not_ok "$f exists"
	fi
done

if $PY "$TMP/links.py" "$SRC" $have >"$TMP/bad" 2>&1; then
	ok "every relative link in$have names a file (and heading) here"
else
	not_ok "every relative link names a file of the repository" \
	    "$(sed '2,$s/^/#   /' "$TMP/bad")"
fi

# ../shared is the workplace beside the clone, which a user does not have.
if grep -n '\.\./shared' $have man/harn-egressd.8 man/egress.conf.5 \
    bench/README.md >"$TMP/shared" 2>/dev/null; then
	not_ok "nothing names ../shared" "$(sed '2,$s/^/#   /' "$TMP/shared")"
else
	ok "nothing names ../shared"
fi

# Every page, and the references, reachable from the README.
for f in $pages ARCHITECTURE.md man/harn-egressd.8 man/egress.conf.5 \
    bench/README.md; do
	if grep -q "](\(\./\)\?$f\(#[^)]*\)\?)" README.md; then
		ok "README.md links $f"
	else
		not_ok "README.md links $f" "add a line for it to README.md"
	fi
done

finish
