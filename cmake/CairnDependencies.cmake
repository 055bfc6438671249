# Every dependency is a Debian package (tools/install-deps installs them); nothing is vendored
# or downloaded at build time.
find_package(RocksDB 7 CONFIG REQUIRED)        # librocksdb-dev
find_package(Boost 1.74 REQUIRED)              # libboost-dev (Asio, header-only)
find_package(cereal CONFIG REQUIRED)           # libcereal-dev
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)  # libxxhash-dev
# JSON parsing for Fingerprint::OfJson: a well-kept parser beats one we would write.
find_package(nlohmann_json 3 CONFIG REQUIRED)  # nlohmann-json3-dev
find_package(Threads REQUIRED)
if(CAIRN_BUILD_TESTS)
  find_package(GTest REQUIRED)                 # libgtest-dev
endif()
if(CAIRN_BUILD_BENCH)
  find_package(benchmark REQUIRED)             # libbenchmark-dev
endif()
