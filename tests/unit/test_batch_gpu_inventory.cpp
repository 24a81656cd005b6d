// test_batch_gpu_inventory.cpp: the GPUs `grader batch --gpus` grades on (grader/src/batch/gpu_inventory.h):
// nvidia-smi's list read strictly, CUDA_VISIBLE_DEVICES honoured, --gpus N|all chosen or refused with a sentence,
// and the after-grading check through the test hook GRADER_TEST_NVIDIA_SMI.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "batch/gpu_inventory.h"
#include "temp_dir.h"

using namespace grader;

namespace {

const std::string two_gpus =
    "0, GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f, NVIDIA H200\n"
    "1, GPU-0e1d2c3b-4a59-6877-8899-aabbccddeeff, NVIDIA H200\n";

// Sets an environment variable for one test case, restoring it after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("nvidia-smi's list is read line by line") {
  const auto list = parse_gpu_inventory(two_gpus + "\n");
  REQUIRE(list.size() == 2);
  CHECK(list[1].index == 1);
  CHECK(list[1].uuid == "GPU-0e1d2c3b-4a59-6877-8899-aabbccddeeff");
  CHECK(list[1].name == "NVIDIA H200");
  CHECK(describe_gpu(list[0]) == "GPU 0 (GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f)");
  CHECK(parse_gpu_inventory("").empty());
  // A name with a comma of its own is kept whole.
  CHECK(parse_gpu_inventory("3, GPU-abc, Tesla V100, PCIe\n")[0].name == "Tesla V100, PCIe");
}

TEST_CASE("a malformed list is refused with its line") {
  CHECK_THROWS_WITH(parse_gpu_inventory("0, GPU-a, A\nNo devices were found\n"),
                    doctest::Contains("line 2 ('No devices were found'): expected '<index>, <uuid>, <name>'"));
  CHECK_THROWS_WITH(parse_gpu_inventory("x, GPU-a, A\n"), doctest::Contains("the index 'x' is not a number"));
  CHECK_THROWS_WITH(parse_gpu_inventory("0, 5f0c, A\n"), doctest::Contains("is not a GPU UUID"));
  CHECK_THROWS_WITH(parse_gpu_inventory("0, GPU-a, A\n1, GPU-a, A\n"), doctest::Contains("line 2"));
  CHECK_THROWS_WITH(parse_gpu_inventory("0, GPU-a, A\n0, GPU-b, A\n"), doctest::Contains("listed twice"));
}

TEST_CASE("CUDA_VISIBLE_DEVICES limits the GPUs to those it names, by index or UUID") {
  const auto all = parse_gpu_inventory(two_gpus);
  CHECK(visible_gpus(all, "").size() == 2);
  const auto second = visible_gpus(all, "1");
  REQUIRE(second.size() == 1);
  CHECK(second[0].index == 1);
  const auto by_uuid = visible_gpus(all, "GPU-0e1d");
  REQUIRE(by_uuid.size() == 1);
  CHECK(by_uuid[0].index == 1);
  CHECK(visible_gpus(all, "1,0").size() == 2);
  CHECK_THROWS_WITH(visible_gpus(all, "2"), doctest::Contains("names '2', which is none of the GPUs"));
  CHECK_THROWS_WITH(visible_gpus(all, "GPU-"), doctest::Contains("more than one"));
}

TEST_CASE("--gpus N|all") {
  const std::optional<std::vector<Gpu>> two = parse_gpu_inventory(two_gpus);
  ScopedEnv no_visible("CUDA_VISIBLE_DEVICES", std::nullopt);
  CHECK(choose_gpus("all", two).size() == 2);
  const auto one = choose_gpus("1", two);
  REQUIRE(one.size() == 1);
  CHECK(one[0].index == 0);
  for (const char* bad : {"0", "-1", "two", "", "1.5"}) {
    try {
      choose_gpus(bad, two);
      FAIL("accepted --gpus " << bad);
    } catch (const GpuRequestError& error) {
      CHECK(error.malformed);
    }
  }
  try {
    choose_gpus("3", two);
    FAIL("accepted 3 GPUs of 2");
  } catch (const GpuRequestError& error) {
    CHECK_FALSE(error.malformed);
    CHECK(std::string(error.what()).find("this machine has 2 GPU(s)") != std::string::npos);
  }
  CHECK_THROWS_WITH(choose_gpus("1", std::nullopt), doctest::Contains("no nvidia-smi on PATH"));
  CHECK_THROWS_WITH(choose_gpus("all", std::vector<Gpu>{}), doctest::Contains("lists no GPU"));
}

TEST_CASE("the test hook stands in for nvidia-smi: the inventory and the check after a grading") {
  TempDir dir("test-gpu-inventory");
  const auto fake = dir.path() / "fake-smi";
  const auto list = dir.path() / "list";
  const auto ecc = dir.path() / "ecc";
  // Lists what `list` holds, or just the GPU that -i names when it is there; fails when `list` is gone.
  std::ofstream(fake) << "#!/bin/sh\n"
                         "[ -f '" + list.string() + "' ] || { echo 'Unable to determine the device handle'; exit 15; }\n"
                         "case \"$3\" in *ecc.errors*) cat '" + ecc.string() + "'; exit 0;; esac\n"
                         "if [ \"$1\" = -i ]; then grep -F \"$2\" '" + list.string() + "'; exit 0; fi\n"
                         "cat '" + list.string() + "'\n";
  ::chmod(fake.c_str(), 0755);
  std::ofstream(list) << two_gpus;
  ScopedEnv hook("GRADER_TEST_NVIDIA_SMI", fake.string());
  ScopedEnv no_visible("CUDA_VISIBLE_DEVICES", std::nullopt);
  const auto found = query_gpus();
  REQUIRE(found);
  REQUIRE(found->size() == 2);
  CHECK(gpu_health_problem((*found)[1]).empty());
  {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "1");
    REQUIRE(query_gpus()->size() == 1);
    CHECK(query_gpus()->front().index == 1);
  }
  // The driver's count of uncorrectable ECC errors; none on a GPU without ECC.
  std::ofstream(ecc) << "0\n";
  CHECK(uncorrectable_ecc_errors((*found)[0]) == 0);
  std::ofstream(ecc) << "3\n";
  CHECK(uncorrectable_ecc_errors((*found)[0]) == 3);
  std::ofstream(ecc) << "[N/A]\n";
  CHECK_FALSE(uncorrectable_ecc_errors((*found)[0]));
  // GPU 1 falls off the bus: nvidia-smi lists only GPU 0.
  std::ofstream(list) << "0, GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f, NVIDIA H200\n";
  CHECK(gpu_health_problem((*found)[1]) == "nvidia-smi no longer lists it");
  CHECK(gpu_health_problem((*found)[0]).empty());
  std::filesystem::remove(list);
  CHECK(gpu_health_problem((*found)[0]).find("no longer answers for it") != std::string::npos);
  CHECK_THROWS_WITH(query_gpus(), doctest::Contains("nvidia-smi could not list the GPUs"));
}
