// A sweep run end to end into the result JSON a user would get, for the tests that check that
// document: run_sweep writes it to a temporary file, which is read back and removed.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/run_command.hpp"

namespace arbench::testing {

// An all-reduce sweep of `variants` on `world` ranks of `backend`; the test sets the rest.
inline RunConfig allreduce_sweep(const std::string& backend, int world, std::vector<std::string> variants) {
  RunConfig cfg;
  cfg.backend = backend;
  cfg.gpus = {world};
  cfg.families = {Family::allreduce};
  cfg.variants = std::move(variants);
  return cfg;
}

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

// `cfg` (quiet) through run_sweep with `registry`, its result JSON (a temporary file named after
// `tag`, removed after) read into `doc`. A fatal failure when run_sweep does not exit 0: call it
// inside ASSERT_NO_FATAL_FAILURE.
inline void sweep_to_json(RunConfig cfg, const std::string& tag, nlohmann::json& doc,
                          const Registry& registry = Registry::builtin()) {
  cfg.quiet = true;
  cfg.out_json = ::testing::TempDir() + "arbench-" + tag + "-" + std::to_string(::getpid()) + ".json";
  ASSERT_EQ(run_sweep(cfg, false, solo_world(), registry), 0);
  doc = read_json_file(cfg.out_json);
  std::remove(cfg.out_json.c_str());
}

}  // namespace arbench::testing
