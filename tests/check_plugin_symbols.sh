#!/usr/bin/env bash
# Checks that a q plugin can load in q: every undefined dynamic symbol must be either one of the
# functions q exports to plugins or defined by a library the plugin itself depends on (libc,
# libstdc++, libtorch, ...); the plugin must not define any of q's function names, and it must
# export `fns`.
#   tests/check_plugin_symbols.sh build/q/ktorch.so
set -euo pipefail
plugin=$1

q_exports="ktn knk ka kb kg kh ki kj ke kf kc ks kp kpn kd kt kz ktj ku ss sn xD xT ktd knt r0 r1
krr orr ee ja js jk jv k vak vaknk dot dl b9 d9 okx sd1 sd0 sd0x setm m9 ymd dj gc vi vk ver"
declare -A allowed=()
for s in $q_exports; do allowed[$s]=1; done

declare -A provided=()
while read -r lib; do
  while read -r s; do provided[$s]=1; done < <(nm -D --defined-only "$lib" 2>/dev/null | awk '{print $3}' | sed 's/@.*//')
done < <(ldd "$plugin" | awk '/=> \//{print $3} /^\t\//{print $1}')

status=0
while read -r s; do
  [ -n "$s" ] || continue
  if [ -z "${allowed[$s]:-}" ] && [ -z "${provided[$s]:-}" ]; then
    echo "undefined symbol neither exported by q nor provided by a dependency: $s"
    status=1
  fi
done < <(nm -D --undefined-only "$plugin" | awk '$1=="U"{print $2}' | sed 's/@.*//')

while read -r s; do
  if [ -n "${allowed[$s]:-}" ]; then
    echo "the plugin defines q's function $s"
    status=1
  fi
done < <(nm -D --defined-only "$plugin" | awk '{print $3}')

nm -D --defined-only "$plugin" | awk '{print $3}' | grep -qx fns || { echo "fns is not exported"; status=1; }
[ $status -eq 0 ] && echo "ok: $plugin binds only to q's exports and its own dependencies"
exit $status
