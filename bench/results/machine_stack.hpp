// The machine apart from its software stack (docs/regression.md, "Machine and stack").
//  - machine: what names a box — backend, host, CPU, GPUs with their bus ids, the launch of a
//    multi-process run, and the PCIe topology (the relation matrix of the run's GPUs) when the
//    run read it. `machine.id` hashes these fields; two results of one id are comparable.
//  - stack: what runs on it — driver, CUDA runtime, NCCL version and library, arbench's version
//    and revision, the peers built in (their versions and commits). Recorded beside the machine and diffed by `compare` and the nightly; a stack
//    change is a verdict (`compare` judges it), never a different machine.
// Written into a result's provenance as "machine" {"id","fields"} and "stack" {...}. A result
// written before the split (no "machine"; its "fingerprint" hashes hardware and stack together)
// is migrated when read: the same functions derive both from its fingerprint_fields and
// provenance, so an old result and a new one of one box get one machine id.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace arbench {

using FieldMap = std::map<std::string, std::string>;

// The stack fields, in report order; the first four are the platform (what an upgrade changes:
// the nightly's STACK CHANGED), the rest arbench's own and the peers built into it.
inline const std::vector<std::string>& stack_keys() {
  static const std::vector<std::string> k = {"driver",          "cuda_runtime",    "nccl_version",
                                             "nccl_library",    "arbench_version", "arbench_revision",
                                             "peers"};
  return k;
}
bool is_platform_stack_key(const std::string& key);
// "driver", "CUDA runtime", "NCCL", "NCCL library", "arbench", "arbench revision".
std::string stack_key_label(const std::string& key);

// Machine fields of a provenance object (new or old format): its fingerprint_fields without
// the stack's, plus "pcie" (provenance.topology's relation matrix) when recorded.
FieldMap machine_fields_of(const nlohmann::json& provenance);
// 16 hex digits (FNV-1a 64 over "key=value\n" in key order); "" for no fields.
std::string machine_id(const FieldMap& fields);
// The stack of a provenance object: each of stack_keys() it records (absent keys left out).
FieldMap stack_of(const nlohmann::json& provenance);
// Writes provenance["machine"] and provenance["stack"] (arbench run, after the topology).
void add_machine_and_stack(nlohmann::json& provenance);

struct StackChange {
  std::string key, base_value, new_value;  // "(absent)" when one side lacks the key
  bool platform = false;
};
// The stack keys whose values differ; a key recorded by one side only is left out (an old
// result does not record nccl_library: unknown is not a change).
std::vector<StackChange> stack_changes(const FieldMap& base, const FieldMap& next);
// "NCCL 2.28.9 → 2.29.2, driver 580.65 → 590.10".
std::string stack_changes_text(const std::vector<StackChange>& changes);

}  // namespace arbench
