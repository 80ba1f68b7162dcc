/*
 * Compiled into libonenio.so next to one-nio's own C files. If the JVM can bind this symbol, the
 * library it loaded is the one VideoEdge built (the stock one-nio library does not have it).
 */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <jni.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
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

/*
 * OpenSSL read-ahead on one connection. Without it OpenSSL reads a record's 5-byte header and then
 * its body, two read(2)s per request; with it, one read(2) takes whatever the socket holds, up to
 * its record buffer. Bytes read beyond the record it returns stay inside OpenSSL, where epoll cannot
 * see them: the caller reads again while TlsReadAhead.buffered says so. nginx sets read-ahead on
 * every SSL context.
 */
static jfieldID socket_ssl_field;

/* The SSL* of a one.nio.net.NativeSslSocket (its field "ssl"), NULL when closed or not found. */
static SSL* socket_ssl(JNIEnv* env, jobject socket) {
    if (socket == NULL) return NULL;
    if (socket_ssl_field == NULL) {
        jclass cls = (*env)->FindClass(env, "one/nio/net/NativeSslSocket");
        if (cls == NULL) return NULL; /* NoClassDefFoundError pending */
        socket_ssl_field = (*env)->GetFieldID(env, cls, "ssl", "J");
        if (socket_ssl_field == NULL) return NULL; /* NoSuchFieldError pending */
    }
    return (SSL*)(intptr_t)(*env)->GetLongField(env, socket, socket_ssl_field);
}

/* Whether this library has the entry points below (the stock one-nio library does not). */
JNIEXPORT jboolean JNICALL
Java_io_videoedge_server_nativelib_TlsReadAhead_linked0(JNIEnv* env, jclass cls) {
    return JNI_TRUE;
}

JNIEXPORT jboolean JNICALL
Java_io_videoedge_server_nativelib_TlsReadAhead_enable0(JNIEnv* env, jclass cls, jobject socket) {
    SSL* ssl = socket_ssl(env, socket);
    if (ssl == NULL) return JNI_FALSE;
    SSL_set_read_ahead(ssl, 1);
    return JNI_TRUE;
}

/* Bytes read from the socket that OpenSSL holds and has not returned yet (records, alerts). */
JNIEXPORT jboolean JNICALL
Java_io_videoedge_server_nativelib_TlsReadAhead_buffered0(JNIEnv* env, jclass cls, jobject socket) {
    SSL* ssl = socket_ssl(env, socket);
    return ssl != NULL && SSL_has_pending(ssl) ? JNI_TRUE : JNI_FALSE;
}

/*
 * OpenSSL frees a connection's record buffers (about 17 KiB to read, as much to write) while they
 * are empty, and takes them again for the next record (SSL_MODE_RELEASE_BUFFERS, which nginx sets on
 * every context): an idle keep-alive connection then holds its SSL object and cipher state only.
 * A buffer that holds bytes (a record read ahead, a write the socket did not take yet) is kept.
 */
JNIEXPORT jboolean JNICALL
Java_io_videoedge_server_nativelib_TlsIdleBuffers_release0(JNIEnv* env, jclass cls, jobject socket) {
    SSL* ssl = socket_ssl(env, socket);
    if (ssl == NULL) return JNI_FALSE;
    SSL_set_mode(ssl, SSL_MODE_RELEASE_BUFFERS);
    return JNI_TRUE;
}
