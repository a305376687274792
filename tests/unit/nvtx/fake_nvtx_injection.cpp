// A stand-in for the injection library a tool like Nsight Systems provides:
// NVTX loads it from NVTX_INJECTION64_PATH and calls
// InitializeInjectionNvtx2, which fills NVTX's function table. This one
// records every range pushed in a domain (one line "push NAME" or "pop" per
// call) in the file named by FAKE_NVTX_LOG, so a test can see which ranges a
// program produced without a profiler.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

std::mutex log_mutex;
std::FILE* log_file = nullptr;
int domain_storage = 0;

void write_line(const char* text, const char* name) {
  std::lock_guard lock(log_mutex);
  if (!log_file) return;
  std::fprintf(log_file, "%s%s%s\n", text, name ? " " : "", name ? name : "");
  std::fflush(log_file);
}

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  write_line("domain", name);
  return reinterpret_cast<nvtxDomainHandle_t>(&domain_storage);
}

int NVTX_API domain_range_push(nvtxDomainHandle_t, const nvtxEventAttributes_t* attributes) {
  const char* name = attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII
                         ? attributes->message.ascii
                         : "(not ascii)";
  write_line("push", name);
  return 0;
}

int NVTX_API domain_range_pop(nvtxDomainHandle_t) {
  write_line("pop", nullptr);
  return 0;
}

int NVTX_API range_push(const char* name) {
  write_line("push", name);
  return 0;
}

int NVTX_API range_pop() {
  write_line("pop", nullptr);
  return 0;
}

bool set_entry(NvtxFunctionTable table, unsigned size, unsigned id, NvtxFunctionPointer fn) {
  if (!table || id >= size || !table[id]) return false;
  *table[id] = fn;
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (const char* path = std::getenv("FAKE_NVTX_LOG")) log_file = std::fopen(path, "a");
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || !callbacks->GetModuleFunctionTable) return 0;
  NvtxFunctionTable core2 = nullptr, core = nullptr;
  unsigned core2_size = 0, core_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) return 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return 0;
  set_entry(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA,
            reinterpret_cast<NvtxFunctionPointer>(&domain_create));
  set_entry(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx,
            reinterpret_cast<NvtxFunctionPointer>(&domain_range_push));
  set_entry(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop,
            reinterpret_cast<NvtxFunctionPointer>(&domain_range_pop));
  set_entry(core, core_size, NVTX_CBID_CORE_RangePushA,
            reinterpret_cast<NvtxFunctionPointer>(&range_push));
  set_entry(core, core_size, NVTX_CBID_CORE_RangePop,
            reinterpret_cast<NvtxFunctionPointer>(&range_pop));
  write_line("initialized", nullptr);
  return 1;  // success: NVTX keeps the table
}
