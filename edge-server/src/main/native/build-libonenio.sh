#!/usr/bin/env bash
# Compiles one-nio's JNI library (libonenio.so) from the C files in the one-nio sources jar, for this
# host's glibc, plus videoedge_native.c (build facts the server reports). The stock library inside
# one-nio-2.3.0.jar needs glibc >= 2.38; Debian 12 has 2.36, and without a loadable library one-nio
# silently falls back to plain Java sockets without TLS. So the build fails here, loudly, instead.
#   build-libonenio.sh <unpacked one-nio sources> <output .so> <JAVA_HOME> <one-nio version>
set -euo pipefail
src=$1 out=$2 java_home=$3 version=$4
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "build-libonenio: $*" >&2; exit 1; }
command -v gcc >/dev/null || die "gcc not found: install gcc libc6-dev libssl-dev (make deps)"
[ -f "$java_home/include/jni.h" ] || die "no JNI headers under $java_home/include (a JDK is needed, not a JRE)"
[ -f /usr/include/openssl/ssl.h ] || die "OpenSSL headers not found: install libssl-dev (make deps)"
[ -d "$src/one/nio/net/native" ] || die "one-nio C sources not found under $src"

mapfile -t sources < <(find "$src/one/nio" -path '*/native/*.c' | sort)
[ ${#sources[@]} -gt 0 ] || die "no C sources under $src"
sources+=("$here/videoedge_native.c")

# skip the compile when the library is newer than every input
if [ -f "$out" ]; then
  newer=$(find "${sources[@]}" "$0" -newer "$out" | head -1)
  [ -z "$newer" ] && { echo "build-libonenio: $out is up to date"; exit 0; }
fi

mkdir -p "$(dirname "$out")"
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
echo "build-libonenio: compiling ${#sources[@]} C files (one-nio $version sources, glibc $glibc) -> $out"
gcc -D_GNU_SOURCE -fPIC -shared -O3 -Wno-deprecated-declarations \
    -DONENIO_VERSION="\"$version\"" \
    -I"$java_home/include" -I"$java_home/include/linux" \
    "${sources[@]}" -o "$out.tmp" -ldl -lrt
mv "$out.tmp" "$out"
