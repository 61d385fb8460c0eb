#!/bin/sh
# Benchmarks, printed side by side with peers; figures, not pass/fail.
#   scripts/bench.sh            decisions/s, then the proxy peer table
#   scripts/bench.sh decide     decisions/s only
#   scripts/bench.sh sandbox    a confined /bin/true, and a connect()
#                               through the connect broker, against none
#   scripts/bench.sh peers      the peer table only (about 5 minutes)
# The peer table runs ../shared/bench/run-peers.sh (tinyproxy, squid,
# microsocks, dante, direct loopback) with this build in the same table.
# Knobs of run-peers.sh (DUR, REPS, SRC_IPS, PEERS, ...) pass through.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
bench=${HARN_BENCH_DIR:-$top/../shared/bench}
what=${1:-all}

sh "$top/scripts/bootstrap.sh" >/dev/null

if [ "$what" = all ] || [ "$what" = decide ]; then
	"$top/build/tests/bench_decide" 2>/dev/null ||
	    make -C "$top/build" tests/bench_decide >/dev/null &&
	    "$top/build/tests/bench_decide"
fi
if [ "$what" = all ] || [ "$what" = sandbox ]; then
	make -C "$top/build" tests/bench_broker >/dev/null
	ws=$(mktemp -d "${TMPDIR:-/tmp}/harn-bench.XXXXXX")
	printf 'default deny\n' >"$ws/p.conf"
	cp "$top/build/tests/bench_broker" "$ws/bench_broker"
	echo "== connect(): unconfined"
	(cd "$ws" && ./bench_broker 3000)
	echo "== connect(): confined (every call through the connect broker)"
	(cd "$ws" && "$top/build/harn-egressd" --policy "$ws/p.conf" \
	    --workspace "$ws" -- ./bench_broker 3000)
	if command -v hyperfine >/dev/null 2>&1; then
		echo "== a confined /bin/true, against an unconfined one"
		(cd "$ws" && hyperfine -N -w 5 -r 50 \
		    "$top/build/harn-egressd --policy $ws/p.conf -- /bin/true" \
		    "$top/build/harn-egressd --policy $ws/p.conf --no-sandbox -- /bin/true" \
		    2>&1 | grep -E 'Benchmark|Time')
	else
		echo "(hyperfine is not installed: apt-get install hyperfine)"
	fi
	rm -rf "$ws"
fi
[ "$what" = all ] || [ "$what" = peers ] || exit 0

missing=""
for p in nginx-light tinyproxy microsocks dante-server squid procps; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	    --no-install-recommends $missing
fi

rundir=${RUNDIR:-/tmp/proxybench}
mkdir -p "$rundir"
# The harness's origin listens on 127.0.0.1:18080-18087: allow exactly that,
# with a decision log written to a file like a real deployment.
cat > "$rundir/harn-egressd.conf" <<CONF
allow_loopback on
allow 127.0.0.1:18080 127.0.0.1:18081 127.0.0.1:18082 127.0.0.1:18083
allow 127.0.0.1:18084 127.0.0.1:18085 127.0.0.1:18086 127.0.0.1:18087
max_connections 20000
CONF
port=${HARN_BENCH_PORT:-13128}
UNDER_TEST_NAME=harn-egressd \
UNDER_TEST_HTTP=127.0.0.1:$port \
UNDER_TEST_SOCKS=127.0.0.1:$port \
UNDER_TEST_CMD="$top/build/harn-egressd --policy $rundir/harn-egressd.conf --listen 127.0.0.1:$port --log $rundir/harn-egressd.log" \
SRC_IPS=${SRC_IPS:-8} \
RUNDIR=$rundir \
    bash "$bench/run-peers.sh"
