#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run mode's sandbox (SPEC 6), the environment and $HOME: planted
# variables, credentials below $HOME however it is written, the stand-ins
# the command gets.
# The probe, the controls and the passes (root, nobody, landlock):
# tests/sandbox/lib.sh.
#
# Standalone: top_builddir=/path/to/build top_srcdir=/path/to/src sh tests/sandbox/home.sh
# HARN_EGRESSD=/path/to/binary overrides the binary under test.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/sandbox/lib.sh"

# ------------------------------------------------------------------ environment

env_checks() {
	planted="LD_PRELOAD=$TMP/empty.so GLIBC_TUNABLES=glibc.malloc.check=0 SSH_AUTH_SOCK=/tmp/agent.sock NO_PROXY=planted.example no_proxy=planted.example XDG_RUNTIME_DIR=/run/user/0"
	for v in SECRET_TOKEN LD_PRELOAD GLIBC_TUNABLES SSH_AUTH_SOCK \
	    XDG_RUNTIME_DIR; do
		# shellcheck disable=SC2086
		run_out "$TMP/control.out" env $planted \
		    SECRET_TOKEN="$ENV_SECRET" "$ESC" env "$v"
		if [ "$RC" -ne 10 ]; then
			not_ok "control (direct) escapes: env $v" \
			    "exit $RC: $(first_line "$TMP/control.out")"
			continue
		fi
		ok "control (direct) escapes: env $v"
		BOX_ENV=$planted
		run_out "$TMP/box.out" box -- "$ESC" env "$v"
		BOX_ENV=""
		if [ "$RC" -eq 0 ]; then
			ok "confined blocked: env $v is not passed"
		else
			not_ok "confined blocked: env $v is not passed" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	# NO_PROXY: CMD's own loopback, never the caller's list (not even
	# with --env); NODE_USE_ENV_PROXY so that Node's fetch uses the proxy.
	BOX_ENV=$planted
	run_out "$TMP/box.out" box --env NO_PROXY -- sh -c \
	    'printf "%s|%s|%s\n" "$NO_PROXY" "$no_proxy" "$NODE_USE_ENV_PROXY"'
	BOX_ENV=""
	if [ "$(cat "$TMP/box.out")" = "localhost,127.0.0.1,::1|localhost,127.0.0.1,::1|1" ]; then
		ok "NO_PROXY=localhost,127.0.0.1,::1 (the caller's never), NODE_USE_ENV_PROXY=1"
	else
		not_ok "NO_PROXY=localhost,127.0.0.1,::1 (the caller's never), NODE_USE_ENV_PROXY=1" \
		    "exit $RC: $(cat "$TMP/box.out")"
	fi
	# A test suite's own server on loopback: reached directly through
	# NO_PROXY (before, the proxy refused it private_address).
	run_out "$TMP/box.out" box -- python3 -c '
import http.server, threading, urllib.request
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"own")
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
threading.Thread(target=s.serve_forever, daemon=True).start()
print(urllib.request.urlopen("http://127.0.0.1:%d/" % s.server_port, timeout=5).read().decode())'
	if [ "$RC" -eq 0 ] && [ "$(cat "$TMP/box.out")" = own ]; then
		ok "CMD's own loopback server is reached with the proxy variables set"
	else
		not_ok "CMD's own loopback server is reached with the proxy variables set" \
		    "exit $RC: $(head -c 600 "$TMP/box.out")"
	fi
	# A tool under $HOME (a pyenv shim): worktree grants $HOME
	# read-execute, so it runs; workspace_paths does not grant $HOME:
	# 126 (or 127 where $HOME is not even there) and one line saying
	# which and why, not silence.
	mkdir -p "$H/.pyenv/shims"
	printf '#!/bin/sh\necho shim-ran\n' >"$H/.pyenv/shims/harn-shim"
	chmod 755 "$H/.pyenv/shims/harn-shim"
	BOX_ENV="PATH=$H/.pyenv/shims:$PATH"
	run_out "$TMP/box.out" box -- harn-shim
	shim_ctl=$(cat "$TMP/box.out")
	run_out "$TMP/box.out" box --profile workspace_paths -- harn-shim
	BOX_ENV=""
	if [ "$shim_ctl" = shim-ran ]; then
		ok "a tool under \$HOME (a pyenv shim) runs"
	else
		not_ok "a tool under \$HOME (a pyenv shim) runs" "$shim_ctl"
	fi
	if { [ "$RC" -eq 126 ] || [ "$RC" -eq 127 ]; } &&
	    grep -q '^harn-egressd: cannot run [^ ]*harn-shim: .*see --read-only-root)$' "$TMP/box.out"; then
		ok "a tool under \$HOME the profile hides: exit $RC and a line saying why ($(first_line "$TMP/box.out"))"
	else
		not_ok "a tool under \$HOME the profile hides: 126/127 and a line saying why" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	# ~/.npmrc is denied, but npm keeps its settings: a stand-in without
	# the credential lines (NPM_CONFIG_USERCONFIG), and the caches in the
	# run's private directory, outside the workspace.  The planted token
	# must reach neither CMD nor the workspace.
	had_npmrc=no
	[ -e "$H/.npmrc" ] && had_npmrc=yes && mv "$H/.npmrc" "$H/.npmrc.saved"
	npm_secret="npm-token-$$-planted"
	printf 'registry=https://npm.example.test/\n//npm.example.test/:_authToken=%s\n_auth=%s\nalways-auth=true\n' \
	    "$npm_secret" "$npm_secret" >"$H/.npmrc"
	run_out "$TMP/box.out" box -- sh -c \
	    'cat "$NPM_CONFIG_USERCONFIG"; echo "cache=$npm_config_cache"; cat ~/.npmrc 2>/dev/null'
	if grep -q '^registry=https://npm.example.test/$' "$TMP/box.out" &&
	    grep -q '^always-auth=true$' "$TMP/box.out" &&
	    grep -q '^cache=/.*/cache/npm$' "$TMP/box.out" &&
	    ! grep -q "^cache=$WS/" "$TMP/box.out" &&
	    ! grep -q "$npm_secret" "$TMP/box.out" &&
	    ! grep -rq "$npm_secret" "$WS" 2>/dev/null; then
		ok "~/.npmrc: settings through a stand-in, no credential line inside or in the workspace"
	else
		not_ok "~/.npmrc: settings through a stand-in, no credential line inside or in the workspace" \
		    "exit $RC: $(head -c 500 "$TMP/box.out")"
	fi
	# The same with a real npm: the settings it reads inside are the ones
	# it reads outside, the credentials are not there.
	npm_show='npm config get registry always-auth 2>/dev/null; npm config list 2>/dev/null | grep -c "(protected)"'
	if command -v npm >/dev/null 2>&1; then
		env HOME="$H" npm_config_cache="$TMP/npm-cache" sh -c "$npm_show" \
		    >"$TMP/npm.out" 2>&1
		run_out "$TMP/box.out" box -- sh -c "$npm_show"
		# Outside: the settings, then the two credentials npm protects.
		# Inside: the same settings, no credential at all.
		if [ "$(cat "$TMP/npm.out")" = "$(printf 'registry=https://npm.example.test/\nalways-auth=true\n2')" ] &&
		    [ "$(cat "$TMP/box.out")" = "$(printf 'registry=https://npm.example.test/\nalways-auth=true\n0')" ] &&
		    ! grep -rq "$npm_secret" "$WS" 2>/dev/null; then
			ok "npm config: the same settings inside and out, its protected credentials only outside"
		else
			not_ok "npm config: the same settings inside and out, its protected credentials only outside" \
			    "outside: $(cat "$TMP/npm.out")" "inside (exit $RC): $(head -c 500 "$TMP/box.out")"
		fi
	else
		skip "npm config inside and out: npm is not installed (scripts/bootstrap.sh installs it)"
	fi
	rm -f "$H/.npmrc"
	[ "$had_npmrc" = yes ] && mv "$H/.npmrc.saved" "$H/.npmrc"
	BOX_ENV="HARN_PASS_ME=1"
	run_out "$TMP/box.out" box --env HARN_PASS_ME -- "$ESC" env HARN_PASS_ME
	BOX_ENV=""
	if [ "$RC" -eq 10 ]; then
		ok "--env NAME passes NAME"
	else
		not_ok "--env NAME passes NAME" "exit $RC: $(first_line "$TMP/box.out")"
	fi
	for v in LD_PRELOAD LD_LIBRARY_PATH GLIBC_TUNABLES SSH_AUTH_SOCK; do
		rm -f "$WS/env-usage.mark"
		BOX_ENV="$v=x"
		run_out "$TMP/box.out" box --env "$v" -- sh -c 'echo ran > env-usage.mark'
		BOX_ENV=""
		if [ "$RC" -eq 2 ] && [ ! -e "$WS/env-usage.mark" ]; then
			ok "--env $v is a usage error (exit 2, nothing run)"
		else
			not_ok "--env $v is a usage error (exit 2, nothing run)" \
			    "exit $RC: $(first_line "$TMP/box.out")"
		fi
	done
	run_out "$TMP/box.out" box -- sh -c 'printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n" "$HTTP_PROXY" "$HTTPS_PROXY" "$http_proxy" "$https_proxy" "$ALL_PROXY" "$all_proxy" "$TMPDIR" "$TMP" "$TEMP" "$XDG_CACHE_HOME"'
	IFS='|' read -r hp hsp lhp lhsp ap lap td tm te xc <"$TMP/box.out"
	case $hp in
	http://127.0.0.1:[0-9]*)
		if [ "$hsp" = "$hp" ] && [ "$lhp" = "$hp" ] && [ "$lhsp" = "$hp" ] &&
		    [ "$ap" = "socks5h://127.0.0.1:${hp##*:}" ] && [ "$lap" = "$ap" ]; then
			ok "proxy variables: $hp, $ap"
		else
			not_ok "proxy variables" "$(cat "$TMP/box.out")"
		fi ;;
	*)	not_ok "proxy variables" "exit $RC: $(cat "$TMP/box.out")" ;;
	esac
	case $td in
	"$WS" | "$WS"/* | "") inws=yes ;;
	*) inws=no ;;
	esac
	if [ "$inws" = no ] && [ "$tm" = "$td" ] && [ "$te" = "$td" ] &&
	    [ "${td%/tmp}" = "${xc%/cache}" ] && [ "$xc" != "$td" ]; then
		ok "TMPDIR/TMP/TEMP and XDG_CACHE_HOME in the run's private directory, outside the workspace ($td)"
	else
		not_ok "TMPDIR/TMP/TEMP and XDG_CACHE_HOME in the run's private directory, outside the workspace" \
		    "$(cat "$TMP/box.out")"
	fi
	BOX_ENV="FOO_UNLISTED=1 LC_ALL=C"
	run_out "$TMP/box.out" box -- sh -c 'env | cut -d= -f1 | sort | tr "\n" " "'
	BOX_ENV=""
	extra=""
	for n in $(cat "$TMP/box.out"); do
		case $n in
		PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|LC_*|TZ|PWD|SHLVL|_) ;;
		HTTP_PROXY|HTTPS_PROXY|http_proxy|https_proxy|ALL_PROXY|all_proxy) ;;
		NO_PROXY|no_proxy|NODE_USE_ENV_PROXY) ;;
		RES_OPTIONS) ;;	# use-vc: names answered over TCP (6.6)
		TMPDIR|TMP|TEMP|XDG_CACHE_HOME|NPM_CONFIG_USERCONFIG) ;;
		npm_config_cache|PIP_CACHE_DIR|GOCACHE|GOMODCACHE|YARN_CACHE_FOLDER) ;;
		*) extra="$extra $n" ;;
		esac
	done
	if [ "$RC" -eq 0 ] && [ -z "$extra" ]; then
		ok "the environment is the baseline allowlist only"
	else
		not_ok "the environment is the baseline allowlist only" "extra:$extra"
	fi
}

# box_home HOME WS [OPTION...] -- CMD...: box with another HOME and
# workspace.
box_home() {
	bhome=$1 bws=$2
	shift 2
	# shellcheck disable=SC2086
	env HOME="$bhome" $LAUNCH "$EGRESSD" --policy "$POL" --workspace "$bws" \
	    --log "$TMP/decisions.log" "$@"
}

# standin_read LABEL HOME WS: the stand-in for ~/.npmrc the command gets
# holds nothing of the planted file outside.
standin_read() {
	run_out "$TMP/box.out" box_home "$2" "$3" -- sh -c \
	    'echo "cfg=$NPM_CONFIG_USERCONFIG"; cat "$NPM_CONFIG_USERCONFIG" 2>/dev/null; :'
	if [ "$RC" -eq 0 ] && ! grep -Fq "$SECRET" "$TMP/box.out" &&
	    ! grep -rFq "$SECRET" "$3" 2>/dev/null; then
		ok "$1: no stand-in made through it ($(first_line "$TMP/box.out"))"
	else
		not_ok "$1: no stand-in made through it" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
}

# harn-egressd reads ~/.npmrc for the command (the stand-in).  A link the
# command could have left on the way must not make it read any other file
# for it: the workspace at ~, ~ below the workspace, and a dotfile link
# into the workspace.
standin_checks() {
	sfile=$TMP/standin-secret
	printf 'stolen=%s\n' "$SECRET" >"$sfile"
	chmod 600 "$sfile"
	control direct "read a file outside the workspace (the link's target)" \
	    read "$sfile" || return 0
	H3=$TMP/home3
	rm -rf "$H3" && mkdir -p "$H3" && chmod 777 "$H3"
	# Planted by the command itself where it may (namespaces), else by a
	# step before it.
	run_out "$TMP/box.out" box_home "$H3" "$H3" -- ln -s "$sfile" "$H3/.npmrc"
	[ -L "$H3/.npmrc" ] || ln -s "$sfile" "$H3/.npmrc"
	standin_read "workspace at ~, ~/.npmrc a link to a file outside" "$H3" "$H3"
	rm -rf "$H3" && mkdir -p "$H3/a/home" && chmod -R 777 "$H3"
	ln -s "$sfile" "$H3/a/home/.npmrc"
	standin_read "~ below the workspace, ~/.npmrc a link to a file outside" \
	    "$H3/a/home" "$H3"
	rm -rf "$H3/a/home" "$TMP/sdir" && mkdir -p "$TMP/sdir"
	cp "$sfile" "$TMP/sdir/.npmrc"
	ln -s "$TMP/sdir" "$H3/a/home"
	standin_read "~ a link in the workspace to the directory of a file named .npmrc" \
	    "$H3/a/home" "$H3"
	rm -rf "$H3" && mkdir -p "$H3" "$TMP/home4/dotfiles" && chmod 777 "$H3"
	ln -sfn "$H3/npmrc" "$TMP/home4/.npmrc"
	ln -s "$sfile" "$H3/npmrc"
	standin_read "~/.npmrc a dotfile link into the workspace, replaced there by a link" \
	    "$TMP/home4" "$H3"
	# The control: a dotfile link out of the command's reach is followed.
	printf 'registry=https://npm.example.test/\n_authToken=%s\n' "$SECRET" \
	    >"$TMP/home4/dotfiles/npmrc"
	ln -sfn dotfiles/npmrc "$TMP/home4/.npmrc"
	run_out "$TMP/box.out" box_home "$TMP/home4" "$H3" -- sh -c \
	    'cat "$NPM_CONFIG_USERCONFIG"'
	if [ "$RC" -eq 0 ] &&
	    grep -q '^registry=https://npm.example.test/$' "$TMP/box.out" &&
	    ! grep -Fq "$SECRET" "$TMP/box.out"; then
		ok "~/.npmrc a dotfile link out of reach: followed, its settings in the stand-in"
	else
		not_ok "~/.npmrc a dotfile link out of reach: followed, its settings in the stand-in" \
		    "exit $RC: $(head -c 400 "$TMP/box.out")"
	fi
	rm -rf "$H3" "$TMP/home4" "$TMP/sdir" "$sfile"
}

# $HOME written other than canonically (a trailing slash, //, ., ..):
# the credential files below it are denied all the same.
home_form_checks() {
	control direct "read ~/.ssh/id_rsa" read "$H/.ssh/id_rsa" || return 0
	for hf in "$H/" "/$H" "$H/." "$H/../$(basename "$H")"; do
		run_out "$TMP/box.out" box_home "$hf" "$WS" -- "$ESC" read \
		    "$H/.ssh/id_rsa"
		if [ "$RC" -eq 0 ] && grep -q '^BLOCKED ' "$TMP/box.out" &&
		    ! grep -Fq "$SECRET" "$TMP/box.out"; then
			ok "HOME=$hf: ~/.ssh/id_rsa denied ($(first_line "$TMP/box.out"))"
		else
			not_ok "HOME=$hf: ~/.ssh/id_rsa denied" \
			    "exit $RC: $(head -c 300 "$TMP/box.out")"
		fi
	done
}

sandbox_suite home env_checks home_form_checks standin_checks
