#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The documentation a user reads first: README.md fits a first read, every
# relative link in README.md, ARCHITECTURE.md and docs/*.md names a file
# of the repository (and a heading there, for path#anchor), nothing names
# a path outside it, every docs/ page is reachable from README.md, and the
# license is declared (LICENSE, debian/copyright, an SPDX line in each
# source file).
set -eu
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

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

# The license, declared as Debian and GitHub read it: LICENSE is the
# Apache License 2.0's canonical text (the SHA-256 of apache.org's
# LICENSE-2.0.txt, Debian's /usr/share/common-licenses/Apache-2.0),
# README.md says so, debian/copyright in Debian's machine-readable format.
if [ "$(sha256sum <LICENSE 2>/dev/null | cut -d' ' -f1)" = \
    cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30 ]; then
	ok "LICENSE is the Apache License 2.0, verbatim"
else
	not_ok "LICENSE is the Apache License 2.0, verbatim" \
	    "copy /usr/share/common-licenses/Apache-2.0"
fi
expect_grep "README.md: a License section names Apache-2.0 and LICENSE" \
    README.md '^Apache-2\.0: see \[LICENSE\]\(LICENSE\)\.$'
if [ "$(sed -n 1p debian/copyright)" = \
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] &&
    grep -qx 'License: Apache-2.0' debian/copyright &&
    ! grep -q '^License: unknown' debian/copyright; then
	ok "debian/copyright: machine-readable, License: Apache-2.0"
else
	not_ok "debian/copyright: machine-readable, License: Apache-2.0" \
	    "$(head -c 400 debian/copyright)"
fi

# Every source file the project owns starts with its SPDX line (line 1,
# or 2 after a #! line), a new one too: the files git knows of and the
# new ones it does not ignore; in an unpacked tarball, the same names
# less what autotools copied or made (m4/, build-aux/, config.h) and
# build directories.  Not the fuzzers' seeds and dictionaries, nor
# Markdown.
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	git ls-files -c -o --exclude-standard -- '*.c' '*.h' '*.sh' '*.py' \
	    '*.awk' '*.m4' Makefile.am configure.ac 'man/*' 'contrib/*' \
	    '.ci/*' debian/rules 'debian/*.postrm' 'debian/*.postinst' \
	    'debian/*.preinst' 'debian/*.prerm'
else
	find . \( -name .git -o -name 'build*' -o -name autom4te.cache \
	    -o -name _build -o -name _inst \
	    -o -path ./m4 -o -path ./debian/tmp -o -path ./debian/harn-egressd \
	    -o -path ./debian/.debhelper \) -prune -o -type f \( \
	    -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.awk' \
	    -o -name '*.m4' -o -name Makefile.am -o -name configure.ac \
	    -o -path './man/*' -o -path './contrib/*' -o -path './.ci/*' \
	    -o -path ./debian/rules -o -path './debian/*.postrm' \
	    -o -path './debian/*.postinst' -o -path './debian/*.preinst' \
	    -o -path './debian/*.prerm' \) ! -path ./aclocal.m4 \
	    ! -path ./sandbox/seccomp-prog.c ! -path ./config.h -print |
	    sed 's|^\./||'
fi | grep -v '\.md$' | sort >"$TMP/owned"
nowned=0
: >"$TMP/nospdx"
while read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	nowned=$((nowned + 1))
	head=$(sed -n 1p "$f")
	case $head in '#!'*) head=$(sed -n 2p "$f") ;; esac
	case $head in
	*'SPDX-License-Identifier: Apache-2.0'*) ;;
	*) echo "$f" >>"$TMP/nospdx" ;;
	esac
done <"$TMP/owned"
if [ "$nowned" -ge 150 ] && [ ! -s "$TMP/nospdx" ]; then
	ok "each of the $nowned source files starts with SPDX-License-Identifier: Apache-2.0"
else
	not_ok "every source file starts with SPDX-License-Identifier: Apache-2.0" \
	    "$nowned files; without it: $(tr '\n' ' ' <"$TMP/nospdx")"
fi

finish
