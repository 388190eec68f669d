// The translation unit that compiles sim/pch/fdsim_pch.h once (see CMakeLists.txt).
