// The translation unit that compiles sim/pch/fdsim_test_pch.h once (see tests/CMakeLists.txt).
