# SPDX-License-Identifier: MIT
# What every stage of CI (the tests/ci/*.sh that .ci/run runs) starts with. A stage sets `stage`
# (its name) and `default_build` (its build directory), then sources this file, which gives:
#   $build   BUILD from the environment, else default_build
#   $jobs    JOBS from the environment, else the processors online
#   $start   the time it began, in seconds
#   fail MESSAGE   prints "<stage>: FAILED (MESSAGE) after Ns" and exits 1
build=${BUILD:-$default_build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)

fail() {
  echo "$stage: FAILED ($1) after $(($(date +%s) - start))s"
  exit 1
}
