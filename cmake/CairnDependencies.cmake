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
# Lua 5.1 for cairn-server's scripts (the version Redis embeds, which scripts in the wild are
# written for), in Debian's C++ build: a Lua error unwinds as an exception, so C++ objects in
# our library functions are destroyed on the way. The libraries Redis bundles for scripts
# (cjson, bit, cmsgpack, struct) are our own, in server/scripting: Debian's builds of cjson
# and bit are not hardened against hostile scripts as Redis's are.
pkg_check_modules(LUA51 REQUIRED IMPORTED_TARGET lua5.1-c++)  # liblua5.1-0-dev
add_library(cairn_lua INTERFACE)
target_link_libraries(cairn_lua INTERFACE PkgConfig::LUA51)
add_library(Cairn::Lua ALIAS cairn_lua)
if(CAIRN_BUILD_TESTS)
  find_package(GTest REQUIRED)                 # libgtest-dev
endif()
if(CAIRN_BUILD_BENCH)
  find_package(benchmark REQUIRED)             # libbenchmark-dev
endif()
