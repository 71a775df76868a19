# The Debian package: `cpack -G DEB` in the build dir (after `cmake --build`)
# writes flashfit_<version>_<arch>.deb holding what `cmake --install` installs
# under /usr: the binary (stripped), man pages and completions. Its Depends
# are computed by dpkg-shlibdeps from the libraries the binary links, so they
# follow whatever the build machine's libraries are; tests/package checks them.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "flashfit")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "flashfit developers <flashfit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "finds, verifies, installs or builds the flash-attn wheel that fits this machine")
set(CPACK_PACKAGE_DESCRIPTION
  "flashfit probes the machine, Python, torch, GPUs and CUDA toolkit without importing torch, picks\n"
  "the prebuilt flash-attn (causal-conv1d, flash-attn 3) wheel that fits, proves it from its bytes,\n"
  "installs it with rollback, or builds it from source under a memory governor.")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libcurl, libzip and libcrypto are dlopened at their first use
# (src/net/curl_common.cpp, src/binary/zip_library.cpp, src/util/sha256.cpp),
# so dpkg-shlibdeps cannot see them: named here, each at the oldest version
# the build accepts.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.88), libzip4 (>= 1.7), libssl3 (>= 3.0.0)")
# It runs the user's Python and pip; the Python is the user's choice (a venv,
# conda), so only recommended.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-pip")
include(CPack)
