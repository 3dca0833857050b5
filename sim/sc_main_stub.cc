// A definition of sc_main for binaries and tests that link SystemC but have their own
// main() (the ttsim CLI, GoogleTest and Google Benchmark mains). SystemC's library
// references sc_main (C linkage, sysc/kernel/sc_externs.h); it is never called by them.

extern "C" int sc_main(int, char**) { return 0; }
