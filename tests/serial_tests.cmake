# Included by ctest after the discovered GoogleTest cases (TEST_INCLUDE_FILES, tests/CMakeLists.txt):
# tests whose figures are CPU timings of several threads run with no other test beside them.
set_tests_properties(IslandModelShape.ModelAndHostMeasurementAgree PROPERTIES RUN_SERIAL TRUE)
# The host floor's hop is a flag crossing between two pinned threads; with the suite's other tests
# keeping both cores busy it can be a context switch, and 2-rank twins then beat the floor.
set_tests_properties(SolRun.NoHostCaseBeatsItsFloorAtTwoRanks PROPERTIES RUN_SERIAL TRUE)
