// gpu_inventory.h: the GPUs of this node, as `grader batch --gpus N|all` sees them (docs/design.md, "A class on
// every GPU"). The inventory is nvidia-smi's own list:
//
//   $ nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader
//   0, GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f, NVIDIA H200
//   1, GPU-0e1d2c3b-4a59-6877-8899-aabbccddeeff, NVIDIA H200
//
// A worker is confined to its student's GPU by CUDA_VISIBLE_DEVICES=<uuid>: a UUID, unlike an index, names the
// same GPU whatever order the CUDA runtime enumerates devices in (CUDA_DEVICE_ORDER).
//
// Test hook: GRADER_TEST_NVIDIA_SMI names a program run in place of nvidia-smi, with the same arguments, so the
// tests can give a machine without a GPU an inventory (and take a GPU away mid-batch). It is read from the
// grader's own environment, which the TA sets and students never reach (workers get a clean one, pipeline/launch.h).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

struct Gpu {
  int index = -1;    // nvidia-smi's index
  std::string uuid;  // "GPU-5f0c2a7e-..."
  std::string name;  // "NVIDIA H200"
};

// "GPU 1 (GPU-0e1d2c3b-...)": how progress lines and summaries name a GPU.
std::string describe_gpu(const Gpu& gpu);

// A --gpus request that cannot be met (a bad count, more GPUs than the node has, no nvidia-smi): the sentence
// says what to do.
struct GpuRequestError : std::runtime_error {
  // `malformed`: the request itself is wrong (a usage error), not the machine's GPUs.
  GpuRequestError(const std::string& what, bool malformed = false) : std::runtime_error(what), malformed(malformed) {}
  bool malformed;
};

// nvidia-smi's CSV lines (above) into GPUs. Throws std::runtime_error naming the line that is not
// "<index>, <uuid>, <name>", and on a UUID or index listed twice. Blank lines are skipped.
std::vector<Gpu> parse_gpu_inventory(const std::string& csv);

// The GPUs `cuda_visible_devices` names (a SLURM task is given its GPUs this way): each entry an index or a UUID
// (or a unique prefix of one, as CUDA accepts); empty: all of them. Throws GpuRequestError on an entry that names
// none of them. An index is taken as nvidia-smi's, which is CUDA's own order on a node of one GPU model (CUDA puts
// the fastest first, then PCI bus order); name GPUs by UUID on a mixed node.
std::vector<Gpu> visible_gpus(const std::vector<Gpu>& all, const std::string& cuda_visible_devices);

// The GPU a grading's workers run on, CUDA's device 0 (a single grading: `grader lab5`, and the job of
// `grader lab5 --slurm`): the only GPU nvidia-smi lists (a SLURM job whose cgroup shows it its own GPU), else the
// first that `cuda_visible_devices` names, else the node's first. Nothing when none is listed, or when
// CUDA_VISIBLE_DEVICES names a GPU nvidia-smi does not list (then which one CUDA uses is not known here). Its UUID
// keys the GPU's calibration: an index is relative to CUDA_VISIBLE_DEVICES, a UUID names one GPU anywhere.
std::optional<Gpu> grading_gpu(const std::vector<Gpu>& listed, const std::string& cuda_visible_devices);

// Every GPU nvidia-smi (or the test hook) lists on this node, whatever CUDA_VISIBLE_DEVICES says. Nothing when there
// is no nvidia-smi. Throws GpuRequestError when nvidia-smi fails.
std::optional<std::vector<Gpu>> list_gpus();

// This node's GPUs, from nvidia-smi (or the test hook), limited to the grader's own CUDA_VISIBLE_DEVICES when
// set. Nothing when there is no nvidia-smi (no driver: no GPUs). Throws GpuRequestError when nvidia-smi fails.
std::optional<std::vector<Gpu>> query_gpus();

// The GPUs a batch grades on: `request` is "all" or a count of at least 1. Throws GpuRequestError (a sentence
// for the TA) when the request is malformed, when there is no nvidia-smi, or when the node has fewer GPUs.
std::vector<Gpu> choose_gpus(const std::string& request, const std::optional<std::vector<Gpu>>& available);

// The GPU's count of uncorrectable ECC errors since the driver loaded (nvidia-smi's
// ecc.errors.uncorrected.volatile.total), or nothing where it has no ECC or does not say.
std::optional<long long> uncorrectable_ecc_errors(const Gpu& gpu);

// Whether the GPU still answers after a grading: nvidia-smi lists it by its UUID, within 30 s. Empty when it
// does; else why not ("nvidia-smi no longer lists it", "nvidia-smi did not answer within 30 s").
std::string gpu_health_problem(const Gpu& gpu);

}  // namespace grader
