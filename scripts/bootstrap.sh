#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install what harn-egressd needs on Debian 12 (only what is missing), then
# configure and build it in ./build.  Safe to run again.
#   scripts/bootstrap.sh [configure options...]
set -eu

# prometheus: tests/proxy/metrics.sh has Debian's Prometheus scrape --metrics
# and its promtool check the text; tinyproxy: tests/proxy/upstream.sh's parent
# proxy (neither service is started: only their programs are run).
# python3-securesystemslib: tests/attest/dsse.sh verifies envelopes with an Ed25519
# implementation that is not harn-egressd's (the check is skipped without it).
# musl-tools: tests/sandbox/transparent.sh builds a resolver on musl's.
PACKAGES="gcc make autoconf automake pkg-config libc6-dev
libevent-dev libc-ares-dev libssl-dev libseccomp-dev libjansson-dev
zlib1g-dev libcmocka-dev python3 curl openssl iproute2 procps util-linux
clang libclang-rt-14-dev wget python3-securesystemslib prometheus tinyproxy
musl-tools"

top=$(cd "$(dirname "$0")/.." && pwd)

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
# npm (the run-mode tests compare its settings inside and out): Debian's
# package only where no npm is there; a Node.js from elsewhere brings its own.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	echo "bootstrap: installing:$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	    --no-install-recommends $missing
fi

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
    [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi
fi
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt Makefile ]; then
	../configure --enable-werror "$@"
fi
make -j"$(nproc)"
