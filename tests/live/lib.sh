# TAP helpers for the live tests. Source it; FOLIOSTAT names the binary under test.
set -u
FOLIOSTAT=${FOLIOSTAT:-./foliostat}
FOLIOSTAT=$(cd "$(dirname "$FOLIOSTAT")" && pwd)/$(basename "$FOLIOSTAT")
T=$(mktemp -d /tmp/foliostat-live.XXXXXX)
trap 'rm -rf "$T"' EXIT
_n=0
_fail=0

plan() { echo "1..$1"; }
ok() { # ok CONDITION-STATUS NAME
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=1; fi
}
is() { # is GOT WANT NAME
	_n=$((_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		_fail=1
	fi
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root for tracepoints"; }
# A copy of foliostat under another name, so that the workload's comm tells its events
# from the recorder's.
workload_bin() {
	cp "$FOLIOSTAT" "$T/$1"
	echo "$T/$1"
}
