# Included by ctest after the discovered GoogleTest cases (TEST_INCLUDE_FILES, tests/CMakeLists.txt):
# tests whose figures are CPU timings of several threads run with no other test beside them.
set_tests_properties(IslandModelShape.ModelAndHostMeasurementAgree PROPERTIES RUN_SERIAL TRUE)
