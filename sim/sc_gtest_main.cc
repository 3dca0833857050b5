// main() for GoogleTest binaries that link SystemC. Debian's libsystemc.so defines its
// own main() (which calls sc_main); a main() in an archive such as libgtest_main.a
// would lose to it and no test would run, so tests that link SystemC depend on this
// library instead of //third_party/system:gtest_main.

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
