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
# our library functions are destroyed on the way. cjson and bit are Debian's static builds of
# the libraries Redis bundles; they call into whichever Lua they are linked with.
pkg_check_modules(LUA51 REQUIRED IMPORTED_TARGET lua5.1-c++)  # liblua5.1-0-dev
find_library(LUA51_CJSON NAMES liblua5.1-cjson.a REQUIRED)    # lua-cjson-dev
find_library(LUA51_BITOP NAMES liblua5.1-bitop.a REQUIRED)    # lua-bitop-dev
add_library(cairn_lua INTERFACE)
target_link_libraries(cairn_lua INTERFACE ${LUA51_CJSON} ${LUA51_BITOP} PkgConfig::LUA51)
add_library(Cairn::Lua ALIAS cairn_lua)
if(CAIRN_BUILD_TESTS)
  find_package(GTest REQUIRED)                 # libgtest-dev
endif()
if(CAIRN_BUILD_BENCH)
  find_package(benchmark REQUIRED)             # libbenchmark-dev
endif()
