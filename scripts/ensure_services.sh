#!/bin/sh
# The store's tests run on PostgreSQL too, the scale-out tests need Redis, and the deploy/
# test puts nginx in front of two servers: the test fixtures (tests/services.py, and
# tests/online/test_deploy.py) start their own servers on free ports in a temporary folder,
# from Debian's binaries. `make test` runs this first, so that a fresh clone passes on a
# fresh Debian machine: it installs what is missing, as root or with sudo that needs no
# password. The packages' own services are not started (a temporary policy-rc.d says no,
# and no PostgreSQL cluster is created): nothing of the system's listens afterwards.
# Where it cannot install, it says what to do and fails.
set -eu

have_postgres() {
  for bin in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$bin" ] && return 0
  done
  command -v postgres >/dev/null 2>&1
}

have_redis() {
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ]
}

have_nginx() {
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]
}

packages=""
have_postgres || packages="$packages postgresql"
have_redis || packages="$packages redis-server"
have_nginx || packages="$packages nginx"
[ -z "$packages" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "make test: the store's tests need PostgreSQL, Redis and nginx (missing:$packages)," >&2
  echo "and this is not a Debian-like system: install them with your package manager." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  echo "make test: the store's tests need$packages, which this user may not install." >&2
  echo "Run once:  sudo apt-get install$packages" >&2
  exit 1
fi

echo "make test: installing Debian's$packages for the store's tests (once)" >&2
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then  # the packages would start their own services: not for tests
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  made_policy=1
fi
cluster_conf=/etc/postgresql-common/createcluster.d/minodice-tests.conf
made_conf=""
if [ ! -e /etc/postgresql-common/createcluster.conf ] && [ ! -e "$cluster_conf" ]; then
  $sudo mkdir -p "$(dirname "$cluster_conf")"
  echo "create_main_cluster = false" | $sudo tee "$cluster_conf" >/dev/null
  made_conf=1
fi
cleanup() {
  [ -n "$made_policy" ] && $sudo rm -f "$policy"
  [ -n "$made_conf" ] && $sudo rm -f "$cluster_conf"
  return 0
}
trap cleanup EXIT
apt="env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600"
$sudo $apt update -q
# shellcheck disable=SC2086 # one word a package
$sudo $apt install -y -q --no-install-recommends $packages
