// The checks of `arbench doctor`, in the order it runs and prints them (docs/doctor.md has what
// each reads, its verdicts and fixes). Each returns a Check whatever it finds: what could not be
// read is an item saying so and why, never an exception.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "doctor/check.hpp"
#include "doctor/inputs.hpp"

namespace arbench::doctor {

Check check_acs(const Inputs& in);                                // ACS on the bridges of the GPUs' paths
Check check_iommu(const Inputs& in, bool acs_redirects);          // on/off, passthrough/translating, groups
Check check_p2p(const Inputs& in);                                // NVML's P2P status beside the functional check
Check check_links(const Inputs& in);                              // link training, ASPM, pcie_port_pm
Check check_bar1(const Inputs& in);                               // BAR1 size per GPU
Check check_driver(const Inputs& in);                             // version, persistence, uvm_disable_hmm
Check check_nccl_path(const Inputs& in);                          // pairs NCCL sends through host memory
Check check_known_bad(const Inputs& in);                          // known-bad releases installed
Check check_collapse(const Inputs& in);                           // the posted-write collapse probe

// For the checks of what lies between GPUs: adds the item saying there is nothing to check (no GPU:
// could not read; one GPU: ok) and returns true when fewer than two GPUs were found.
bool fewer_than_two_gpus(Check& c, const Inputs& in);

// Every check, in order.
std::vector<Check> run_checks(const Inputs& in);

// What `arbench run` prints before its sweep: the "may hang" findings of the checks that read
// sysfs alone (ACS, IOMMU), one line each; empty when there are none. Never throws, reads no GPU.
std::vector<std::string> hang_risks(const std::filesystem::path& root);

}  // namespace arbench::doctor
