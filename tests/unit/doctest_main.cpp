// doctest_main.cpp: doctest's runner and main, compiled once into doctest_main and linked into every unit test
// (tests/CMakeLists.txt). Compiled in each test file instead, it was two thirds of that file's compile time.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
