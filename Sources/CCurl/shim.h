#include <curl/curl.h>

/* CURLVERSION_NOW is a macro Swift cannot import. */
static inline curl_version_info_data *mcloud_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}
