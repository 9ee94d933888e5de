#!/bin/sh
# The container image's build and start steps, in one place: the Dockerfile runs `build` in its build stage and
# `start` as the containers' command, and tooling/deploy/test/image.test.ts runs both on a plain machine.
#
#   image.sh build OUT          install, build, and assemble the deployable folder into OUT (this script included)
#   image.sh start web|worker|migrate [DIR]
#                               run one process from the folder DIR (default: the folder this script is in)
#   image.sh health PORT        exit 0 when http://127.0.0.1:PORT/healthz answers 200 (the images' HEALTHCHECK)
set -eu

usage() {
  echo "usage: image.sh build OUT | start web|worker|migrate [DIR] | health PORT" >&2
  exit 2
}

[ $# -ge 1 ] || usage
command="$1"
shift

case "${command}" in
build)
  [ $# -eq 1 ] || usage
  root="$(cd "$(dirname "$0")/../.." && pwd)"
  mkdir -p "$1"
  out="$(cd "$1" && pwd)"
  cd "${root}"
  # The pnpm the repository pins, whichever is on PATH (a fresh image has only npm).
  pnpm_version="$(node -p 'require("./package.json").packageManager.split("@")[1]')"
  if [ "$(pnpm --version 2>/dev/null || true)" = "${pnpm_version}" ]; then
    pnpm=pnpm
  else
    pnpm="npx -y pnpm@${pnpm_version}"
  fi
  ${pnpm} install --frozen-lockfile
  # Builds the packages and Next's standalone output, then assembles the folder (tooling/scripts/artifact.mjs).
  ${pnpm} run build:packages
  node tooling/scripts/artifact.mjs --out "${out}"
  node tooling/scripts/check-artifact.mjs "${out}"
  cp tooling/scripts/image.sh "${out}/image.sh"
  chmod 755 "${out}/image.sh"
  ;;
start)
  [ $# -ge 1 ] && [ $# -le 2 ] || usage
  dir="${2:-$(cd "$(dirname "$0")" && pwd)}"
  # The worker allocates little between runs: a small young generation keeps it near 150 MB resident at idle
  # (docs/deployment.md, Startup time and memory). The web server keeps V8's default, for throughput.
  flags=""
  case "$1" in
  web) entry=server.mjs ;;
  worker) entry=worker.mjs flags="--max-semi-space-size=2" ;;
  migrate) entry=migrate.mjs ;;
  *) usage ;;
  esac
  export NODE_ENV="${NODE_ENV:-production}"
  cd "${dir}/apps/web"
  # shellcheck disable=SC2086 # flags is empty or one word
  exec node ${flags} "${entry}"
  ;;
health)
  [ $# -eq 1 ] || usage
  exec node -e '
    fetch(`http://127.0.0.1:${process.argv[1]}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => process.exit(r.status === 200 ? 0 : 1),
      () => process.exit(1),
    );
  ' "$1"
  ;;
*) usage ;;
esac
