#include <curl/curl.h>

/* Swift cannot call C variadic functions or import macro constants, so these typed wrappers stand in. */

static inline curl_version_info_data *mcloud_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

static inline CURLcode mcloud_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mcloud_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mcloud_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mcloud_curl_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

typedef size_t (*mcloud_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode mcloud_curl_setopt_callback(CURL *handle, CURLoption option, mcloud_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode mcloud_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
