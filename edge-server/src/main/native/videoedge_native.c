/*
 * Compiled into libonenio.so next to one-nio's own C files. If the JVM can bind this symbol, the
 * library it loaded is the one VideoEdge built (the stock one-nio library does not have it).
 */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <jni.h>
#include <openssl/opensslv.h>
#include <stdio.h>

#ifndef ONENIO_VERSION
#define ONENIO_VERSION "unknown"
#endif

JNIEXPORT jstring JNICALL
Java_io_videoedge_server_nativelib_NativeBuildInfo_buildInfo(JNIEnv* env, jclass cls) {
    char buf[256];
    snprintf(buf, sizeof(buf), "one-nio=%s glibc.build=%d.%d glibc.runtime=%s openssl.headers=%s",
             ONENIO_VERSION, __GLIBC__, __GLIBC_MINOR__, gnu_get_libc_version(), OPENSSL_VERSION_STR);
    return (*env)->NewStringUTF(env, buf);
}

/* The libssl one-nio dlopens ("libssl.so.3"), as the running process sees it; NULL if absent. */
JNIEXPORT jstring JNICALL
Java_io_videoedge_server_nativelib_NativeBuildInfo_opensslVersion(JNIEnv* env, jclass cls) {
    void* lib = dlopen("libssl.so.3", RTLD_LAZY | RTLD_GLOBAL);
    if (lib == NULL) {
        return NULL;
    }
    const char* (*version)(int) = (const char* (*)(int))dlsym(lib, "OpenSSL_version");
    return version == NULL ? NULL : (*env)->NewStringUTF(env, version(0));
}
