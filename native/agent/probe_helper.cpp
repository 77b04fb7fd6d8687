#include "probe_helper.h"

#include <cstring>

#include "agent_log.h"
#include "com_ptr.h"

namespace dotcov::agent {
namespace {

constexpr char16_t kHelperType[] = u"DotCov.Probes";
constexpr char16_t kHelperMethod[] = u"Hit";
// static void Hit(int32)
constexpr uint8_t kHelperSig[] = {0x00 /*DEFAULT*/, 0x01 /*1 param*/, 0x01 /*void*/, 0x08 /*int32*/};
constexpr uint32_t kAssemblyToken = 0x20000001;  // a manifest module's only Assembly row
constexpr uint32_t kAfPublicKey = 0x0001;

std::string Hr(clr::HRESULT hr) {
  char buf[16];
  snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

}  // namespace

std::vector<uint8_t> ProbeHelper::HelperBody(const uint8_t* counters_base) {
  uint64_t base = reinterpret_cast<uint64_t>(counters_base);
  std::vector<uint8_t> code = {0x21};  // ldc.i8 base
  for (int i = 0; i < 8; ++i) code.push_back(uint8_t(base >> (8 * i)));
  const uint8_t rest[] = {
      0xE0,  // conv.u
      0x02,  // ldarg.0
      0xE0,  // conv.u     (slot is non-negative)
      0x1E,  // ldc.i4.8
      0x5A,  // mul
      0x58,  // add        -> &counters[slot]
      0x25,  // dup
      0x4C,  // ldind.i8
      0x17,  // ldc.i4.1
      0x6A,  // conv.i8
      0x58,  // add
      0x55,  // stind.i8   (plain increment: see docs/architecture.md on concurrency)
      0x2A,  // ret
  };
  code.insert(code.end(), std::begin(rest), std::end(rest));
  std::vector<uint8_t> body = {uint8_t((code.size() << 2) | 0x2)};  // tiny header, max stack 8
  body.insert(body.end(), code.begin(), code.end());
  return body;
}

bool ProbeHelper::InjectIntoCoreLib(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                                    std::string* error) {
  ComPtr<clr::IUnknown> unk;
  clr::HRESULT hr = info->GetModuleMetaData(corelib, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out());
  if (hr != clr::S_OK) return *error = "GetModuleMetaData(CoreLib) failed " + Hr(hr), false;
  ComPtr<clr::IMetaDataEmit> emit;
  ComPtr<clr::IMetaDataImport> import;
  ComPtr<clr::IMetaDataAssemblyImport> asm_import;
  if (!unk.As(clr::IID_IMetaDataEmit, &emit) || !unk.As(clr::IID_IMetaDataImport, &import) ||
      !unk.As(clr::IID_IMetaDataAssemblyImport, &asm_import))
    return *error = "CoreLib metadata interfaces unavailable", false;

  // CoreLib's identity, for the AssemblyRef of covered modules.
  const void* key = nullptr;
  clr::ULONG key_len = 0, hash_alg = 0, name_len = 0;
  char16_t name[256];
  clr::ASSEMBLYMETADATA md{};
  clr::DWORD flags = 0;
  hr = asm_import->GetAssemblyProps(kAssemblyToken, &key, &key_len, &hash_alg, name, 256, &name_len, &md, &flags);
  if (hr != clr::S_OK) return *error = "GetAssemblyProps(CoreLib) failed " + Hr(hr), false;
  public_key_.assign(static_cast<const uint8_t*>(key), static_cast<const uint8_t*>(key) + key_len);
  version_[0] = md.usMajorVersion;
  version_[1] = md.usMinorVersion;
  version_[2] = md.usBuildNumber;
  version_[3] = md.usRevisionNumber;
  assembly_flags_ = key_len ? kAfPublicKey : 0;

  clr::mdTypeDef object_td = 0;
  hr = import->FindTypeDefByName(u"System.Object", 0, &object_td);
  if (hr != clr::S_OK) return *error = "System.Object not found in CoreLib " + Hr(hr), false;
  // Borrow Object..ctor's RVA so the new method has valid IL on disk too; the
  // runtime uses the body set below.
  clr::mdMethodDef object_ctor = 0;
  const uint8_t ctor_sig[] = {0x20 /*HASTHIS*/, 0x00, 0x01};
  hr = import->FindMethod(object_td, u".ctor", ctor_sig, sizeof ctor_sig, &object_ctor);
  if (hr != clr::S_OK) return *error = "Object..ctor not found " + Hr(hr), false;
  clr::ULONG ctor_rva = 0;
  clr::DWORD attr = 0, impl = 0;
  clr::mdTypeDef owner = 0;
  clr::PCCOR_SIGNATURE sig = nullptr;
  clr::ULONG sig_len = 0, mname_len = 0;
  hr = import->GetMethodProps(object_ctor, &owner, nullptr, 0, &mname_len, &attr, &sig, &sig_len, &ctor_rva, &impl);
  if (hr != clr::S_OK) return *error = "GetMethodProps(Object..ctor) failed " + Hr(hr), false;

  clr::mdTypeDef probes_td = 0;
  hr = emit->DefineTypeDef(kHelperType, clr::tdPublic | clr::tdAbstract | clr::tdSealed | clr::tdBeforeFieldInit,
                           object_td, nullptr, &probes_td);
  if (hr != clr::S_OK) return *error = "DefineTypeDef(DotCov.Probes) failed " + Hr(hr), false;
  clr::mdMethodDef hit = 0;
  hr = emit->DefineMethod(probes_td, kHelperMethod, clr::mdPublic | clr::mdStatic | clr::mdHideBySig, kHelperSig,
                          sizeof kHelperSig, ctor_rva, clr::miIL | clr::miManaged | clr::miAggressiveInlining, &hit);
  if (hr != clr::S_OK) return *error = "DefineMethod(Hit) failed " + Hr(hr), false;

  std::vector<uint8_t> body = HelperBody(counters_base);
  ComPtr<clr::IMethodMalloc> alloc;
  hr = info->GetILFunctionBodyAllocator(corelib, alloc.Out());
  if (hr != clr::S_OK || !alloc) return *error = "GetILFunctionBodyAllocator(CoreLib) failed " + Hr(hr), false;
  void* mem = alloc->Alloc(static_cast<clr::ULONG>(body.size()));
  if (!mem) return *error = "IMethodMalloc::Alloc failed", false;
  std::memcpy(mem, body.data(), body.size());
  hr = info->SetILFunctionBody(corelib, hit, static_cast<const uint8_t*>(mem));
  if (hr != clr::S_OK) return *error = "SetILFunctionBody(Hit) failed " + Hr(hr), false;
  Log("helper DotCov.Probes::Hit injected into CoreLib as 0x%08x (counters at %p)", hit, counters_base);
  ready_ = true;
  return true;
}

bool ProbeHelper::ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref,
                                std::string* error) {
  if (!ready_) return *error = "the CoreLib helper is not available", false;
  ComPtr<clr::IUnknown> unk;
  clr::HRESULT hr = info->GetModuleMetaData(module, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out());
  if (hr != clr::S_OK) return *error = "GetModuleMetaData failed " + Hr(hr), false;
  ComPtr<clr::IMetaDataEmit> emit;
  ComPtr<clr::IMetaDataAssemblyEmit> asm_emit;
  if (!unk.As(clr::IID_IMetaDataEmit, &emit) || !unk.As(clr::IID_IMetaDataAssemblyEmit, &asm_emit))
    return *error = "module metadata is not writable", false;
  clr::ASSEMBLYMETADATA md{};
  md.usMajorVersion = version_[0];
  md.usMinorVersion = version_[1];
  md.usBuildNumber = version_[2];
  md.usRevisionNumber = version_[3];
  clr::mdAssemblyRef asm_ref = 0;
  hr = asm_emit->DefineAssemblyRef(public_key_.empty() ? nullptr : public_key_.data(),
                                   static_cast<clr::ULONG>(public_key_.size()), u"System.Private.CoreLib", &md, nullptr,
                                   0, assembly_flags_, &asm_ref);
  // META_S_DUPLICATE (a success code) returns the module's existing reference.
  if (hr < 0) return *error = "DefineAssemblyRef(System.Private.CoreLib) failed " + Hr(hr), false;
  clr::mdTypeRef type_ref = 0;
  hr = emit->DefineTypeRefByName(asm_ref, kHelperType, &type_ref);
  if (hr < 0) return *error = "DefineTypeRefByName(DotCov.Probes) failed " + Hr(hr), false;
  hr = emit->DefineMemberRef(type_ref, kHelperMethod, kHelperSig, sizeof kHelperSig, member_ref);
  if (hr < 0) return *error = "DefineMemberRef(Hit) failed " + Hr(hr), false;
  return true;
}

}  // namespace dotcov::agent
