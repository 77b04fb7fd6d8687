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
// Per-test contexts.
constexpr uint8_t kEnterSig[] = {0x00, 0x01, 0x08 /*int32*/, 0x08};   // static int32 Enter(int32)
constexpr uint8_t kVoidIntSig[] = {0x00, 0x01, 0x01, 0x08};           // static void Exit(int32), HitCtx(int32)
constexpr uint8_t kCctorSig[] = {0x00, 0x00, 0x01};                    // static void .cctor()
constexpr uint8_t kRecordSig[] = {0x01 /*unmanaged cdecl*/, 0x02, 0x01, 0x08, 0x08};  // void(int32, int32)
constexpr uint8_t kCurrentSig[] = {0x00, 0x00, 0x08};                  // static int32 Current()
constexpr uint8_t kMissSig[] = {0x00, 0x02, 0x01, 0x18 /*native int*/, 0x08};  // static void Miss(nint, int32)
constexpr uint8_t kCheckSig[] = {0x00, 0x03, 0x01, 0x18 /*native int*/, 0x08, 0x08};  // static void Check(nint, int32, int32)
// static int64 Interlocked.Increment(int64&)
constexpr uint8_t kIncrementSig[] = {0x00, 0x01, 0x0A /*int64*/, 0x10 /*BYREF*/, 0x0A};
constexpr char16_t kInterlockedType[] = u"System.Threading.Interlocked";
constexpr uint32_t kAssemblyToken = 0x20000001;  // a manifest module's only Assembly row
constexpr uint32_t kAfPublicKey = 0x0001;

std::string Hr(clr::HRESULT hr) {
  char buf[16];
  snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(hr));
  return buf;
}

}  // namespace

std::vector<uint8_t> ProbeHelper::HelperBody(const uint8_t* counters_base, uint32_t increment_token) {
  uint64_t base = reinterpret_cast<uint64_t>(counters_base);
  std::vector<uint8_t> code = {0x21};  // ldc.i8 base
  for (int i = 0; i < 8; ++i) code.push_back(uint8_t(base >> (8 * i)));
  const uint8_t address[] = {
      0xE0,  // conv.u
      0x02,  // ldarg.0
      0xE0,  // conv.u     (slot is non-negative)
      0x1E,  // ldc.i4.8
      0x5A,  // mul
      0x58,  // add        -> &counters[slot]
  };
  code.insert(code.end(), std::begin(address), std::end(address));
  if (increment_token) {
    code.push_back(0x28);  // call Interlocked.Increment(ref long): exact under contention
    for (int i = 0; i < 4; ++i) code.push_back(uint8_t(increment_token >> (8 * i)));
    code.push_back(0x26);  // pop
  } else {
    const uint8_t plain[] = {
        0x25,  // dup
        0x4C,  // ldind.i8
        0x17,  // ldc.i4.1
        0x6A,  // conv.i8
        0x58,  // add
        0x55,  // stind.i8   (plain increment: see docs/architecture.md on concurrency)
    };
    code.insert(code.end(), std::begin(plain), std::end(plain));
  }
  code.push_back(0x2A);  // ret
  std::vector<uint8_t> body = {uint8_t((code.size() << 2) | 0x2)};  // tiny header, max stack 8
  body.insert(body.end(), code.begin(), code.end());
  return body;
}

bool ProbeHelper::ReadCoreLibIdentity(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, std::string* error) {
  ComPtr<clr::IUnknown> unk;
  clr::HRESULT hr = info->GetModuleMetaData(corelib, clr::ofRead, clr::IID_IMetaDataAssemblyImport, unk.Out());
  if (hr != clr::S_OK) return *error = "GetModuleMetaData(CoreLib) failed " + Hr(hr), false;
  ComPtr<clr::IMetaDataAssemblyImport> asm_import;
  if (!unk.As(clr::IID_IMetaDataAssemblyImport, &asm_import))
    return *error = "CoreLib metadata interfaces unavailable", false;
  return TakeIdentity(asm_import.get(), error);
}

bool ProbeHelper::TakeIdentity(clr::IMetaDataAssemblyImport* asm_import, std::string* error) {
  clr::HRESULT hr;
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
  identity_ready_ = true;
  return true;
}

bool ProbeHelper::InjectIntoCoreLib(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                                    bool exact, std::string* error) {
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
  if (!TakeIdentity(asm_import.get(), error)) return false;

  if (exact) {
    clr::mdTypeDef interlocked = 0;
    hr = import->FindTypeDefByName(kInterlockedType, 0, &interlocked);
    if (hr != clr::S_OK) return *error = "System.Threading.Interlocked not found in CoreLib " + Hr(hr), false;
    hr = import->FindMethod(interlocked, u"Increment", kIncrementSig, sizeof kIncrementSig, &increment_token_);
    if (hr != clr::S_OK) return *error = "Interlocked.Increment(ref long) not found in CoreLib " + Hr(hr), false;
  }

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

  ctor_rva_ = ctor_rva;
  clr::mdTypeDef probes_td = 0;
  hr = emit->DefineTypeDef(kHelperType, clr::tdPublic | clr::tdAbstract | clr::tdSealed | clr::tdBeforeFieldInit,
                           object_td, nullptr, &probes_td);
  if (hr != clr::S_OK) return *error = "DefineTypeDef(DotCov.Probes) failed " + Hr(hr), false;
  probes_td_ = probes_td;
  clr::mdMethodDef hit = 0;
  hr = emit->DefineMethod(probes_td, kHelperMethod, clr::mdPublic | clr::mdStatic | clr::mdHideBySig, kHelperSig,
                          sizeof kHelperSig, ctor_rva, clr::miIL | clr::miManaged | clr::miAggressiveInlining, &hit);
  if (hr != clr::S_OK) return *error = "DefineMethod(Hit) failed " + Hr(hr), false;

  std::vector<uint8_t> body = HelperBody(counters_base, increment_token_);
  ComPtr<clr::IMethodMalloc> alloc;
  hr = info->GetILFunctionBodyAllocator(corelib, alloc.Out());
  if (hr != clr::S_OK || !alloc) return *error = "GetILFunctionBodyAllocator(CoreLib) failed " + Hr(hr), false;
  void* mem = alloc->Alloc(static_cast<clr::ULONG>(body.size()));
  if (!mem) return *error = "IMethodMalloc::Alloc failed", false;
  std::memcpy(mem, body.data(), body.size());
  hr = info->SetILFunctionBody(corelib, hit, static_cast<const uint8_t*>(mem));
  if (hr != clr::S_OK) return *error = "SetILFunctionBody(Hit) failed " + Hr(hr), false;
  Log("helper DotCov.Probes::Hit injected into CoreLib as 0x%08x (counters at %p%s)", hit, counters_base,
      increment_token_ ? ", atomic increments" : "");
  ready_ = true;
  return true;
}

namespace {

void Put64(std::vector<uint8_t>* code, uint64_t v) {
  for (int i = 0; i < 8; ++i) code->push_back(uint8_t(v >> (8 * i)));
}
void Put32(std::vector<uint8_t>* code, uint32_t v) {
  for (int i = 0; i < 4; ++i) code->push_back(uint8_t(v >> (8 * i)));
}

// A fat header (max stack 8, InitLocals when there are locals) around `code`.
std::vector<uint8_t> FatBody(const std::vector<uint8_t>& code, uint32_t locals) {
  std::vector<uint8_t> body;
  uint16_t flags = 0x3003 | (locals ? 0x10 : 0);
  body.push_back(uint8_t(flags));
  body.push_back(uint8_t(flags >> 8));
  body.push_back(8);
  body.push_back(0);
  Put32(&body, uint32_t(code.size()));
  Put32(&body, locals);
  body.insert(body.end(), code.begin(), code.end());
  return body;
}

}  // namespace

bool ProbeHelper::InjectContexts(clr::ICorProfilerInfo5* info, clr::ModuleID corelib, const uint8_t* counters_base,
                                 const uint32_t* last_context, void (*record)(int32_t, int32_t), std::string* error) {
  if (!ready_) return *error = "the CoreLib helper is not available", false;
  ComPtr<clr::IUnknown> unk;
  clr::HRESULT hr = info->GetModuleMetaData(corelib, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out());
  if (hr != clr::S_OK) return *error = "GetModuleMetaData(CoreLib) failed " + Hr(hr), false;
  ComPtr<clr::IMetaDataEmit> emit;
  ComPtr<clr::IMetaDataImport> import;
  if (!unk.As(clr::IID_IMetaDataEmit, &emit) || !unk.As(clr::IID_IMetaDataImport, &import))
    return *error = "CoreLib metadata interfaces unavailable", false;

  // AsyncLocal<int32>: a TypeSpec over CoreLib's own generic TypeDef.
  clr::mdTypeDef async_local = 0;
  hr = import->FindTypeDefByName(u"System.Threading.AsyncLocal`1", 0, &async_local);
  if (hr != clr::S_OK) return *error = "System.Threading.AsyncLocal`1 not found " + Hr(hr), false;
  uint32_t coded = (async_local & 0x00FFFFFF) << 2;  // TypeDefOrRef, tag 0 = TypeDef
  std::vector<uint8_t> inst = {0x15 /*GENERICINST*/, 0x12 /*CLASS*/};
  if (coded < 0x80) {
    inst.push_back(uint8_t(coded));
  } else if (coded < 0x4000) {
    inst.push_back(uint8_t(0x80 | (coded >> 8)));
    inst.push_back(uint8_t(coded));
  } else {
    inst.push_back(uint8_t(0xC0 | (coded >> 24)));
    inst.push_back(uint8_t(coded >> 16));
    inst.push_back(uint8_t(coded >> 8));
    inst.push_back(uint8_t(coded));
  }
  inst.push_back(0x01);  // one type argument
  inst.push_back(0x08);  // int32
  clr::mdTypeSpec spec = 0;
  hr = emit->GetTokenFromTypeSpec(inst.data(), clr::ULONG(inst.size()), &spec);
  if (hr < 0) return *error = "GetTokenFromTypeSpec(AsyncLocal<int>) failed " + Hr(hr), false;
  const uint8_t ctor_sig[] = {0x20, 0x00, 0x01};              // instance void .ctor()
  const uint8_t get_sig[] = {0x20, 0x00, 0x13, 0x00};         // instance !0 get_Value()
  const uint8_t set_sig[] = {0x20, 0x01, 0x01, 0x13, 0x00};   // instance void set_Value(!0)
  clr::mdMemberRef ctor = 0, get = 0, set = 0;
  if ((hr = emit->DefineMemberRef(spec, u".ctor", ctor_sig, sizeof ctor_sig, &ctor)) < 0 ||
      (hr = emit->DefineMemberRef(spec, u"get_Value", get_sig, sizeof get_sig, &get)) < 0 ||
      (hr = emit->DefineMemberRef(spec, u"set_Value", set_sig, sizeof set_sig, &set)) < 0)
    return *error = "DefineMemberRef(AsyncLocal<int>) failed " + Hr(hr), false;
  std::vector<uint8_t> field_sig = {0x06 /*FIELD*/};
  field_sig.insert(field_sig.end(), inst.begin(), inst.end());
  clr::mdFieldDef field = 0;
  hr = emit->DefineField(probes_td_, u"s_context", clr::fdPrivate | clr::fdStatic | clr::fdInitOnly,
                         field_sig.data(), clr::ULONG(field_sig.size()), 0, nullptr, 0, &field);
  if (hr != clr::S_OK) return *error = "DefineField(s_context) failed " + Hr(hr), false;
  clr::mdSignature record_sig = 0;
  if ((hr = emit->GetTokenFromSig(kRecordSig, sizeof kRecordSig, &record_sig)) < 0)
    return *error = "GetTokenFromSig failed " + Hr(hr), false;

  // .cctor: s_context = new AsyncLocal<int>();
  std::vector<uint8_t> cctor = {0x73};  // newobj
  Put32(&cctor, ctor);
  cctor.push_back(0x80);  // stsfld
  Put32(&cctor, field);
  cctor.push_back(0x2A);
  // Enter(c): prev = s_context.Value; s_context.Value = c; return prev
  std::vector<uint8_t> enter = {0x7E};  // ldsfld
  Put32(&enter, field);
  enter.push_back(0x6F);  // callvirt get_Value
  Put32(&enter, get);
  enter.push_back(0x7E);
  Put32(&enter, field);
  enter.push_back(0x02);  // ldarg.0
  enter.push_back(0x6F);  // callvirt set_Value
  Put32(&enter, set);
  enter.push_back(0x2A);
  // Exit(prev): s_context.Value = prev
  std::vector<uint8_t> exit = {0x7E};
  Put32(&exit, field);
  exit.push_back(0x02);
  exit.push_back(0x6F);
  Put32(&exit, set);
  exit.push_back(0x2A);
  // After `ldc.i8`: the address of `record`, its unmanaged call, and the helper's final ret (a branch target).
  auto EndWithRecordCall = [&](std::vector<uint8_t>* il) {
    Put64(il, reinterpret_cast<uint64_t>(record));
    il->push_back(0xD3);  // conv.i
    il->push_back(0x29);  // calli void(int32, int32) unmanaged cdecl
    Put32(il, record_sig);
    il->push_back(0x2A);  // DONE: ret
  };
  // Check(p, c, slot), p = &last[slot], c the current context: if (c != 0 && *p != c) { *p = c;
  // record(c, slot); } -- arguments only, so no locals signature is needed.
  std::vector<uint8_t> check = {
      0x03,        // ldarg.1     c
      0x2C, 0x00,  // brfalse.s DONE
      0x02,        // ldarg.0     p
      0x4B,        // ldind.u4    *p
      0x03,        // ldarg.1
      0x2E, 0x00,  // beq.s DONE
      0x02,        // ldarg.0
      0x03,        // ldarg.1
      0x54,        // stind.i4    *p = c
      0x03,        // ldarg.1
      0x04,        // ldarg.2
      0x21,        // ldc.i8 record
  };
  EndWithRecordCall(&check);
  check[2] = uint8_t(check.size() - 1 - 3);
  check[7] = uint8_t(check.size() - 1 - 8);
  // Current(): s_context.Value, read once on entry by each method with inline context checks.
  std::vector<uint8_t> current = {0x7E};  // ldsfld s_context
  Put32(&current, field);
  current.push_back(0x6F);  // callvirt get_Value
  Put32(&current, get);
  current.push_back(0x2A);
  // Miss(p, c), p = &last[slot]: *p = c; if (c != 0) record(c, (p - last) / 4). Storing 0 too keeps code run
  // outside any test from calling here again; `record` ignores pairs it has.
  std::vector<uint8_t> miss = {
      0x02,        // ldarg.0
      0x03,        // ldarg.1
      0x54,        // stind.i4
      0x03,        // ldarg.1
      0x2C, 0x00,  // brfalse.s DONE
      0x03,        // ldarg.1
      0x02,        // ldarg.0
      0x21,        // ldc.i8 last
  };
  Put64(&miss, reinterpret_cast<uint64_t>(last_context));
  for (uint8_t b : {0xE0 /*conv.u*/, 0x59 /*sub*/, 0x18 /*ldc.i4.2*/, 0x64 /*shr.un*/, 0x69 /*conv.i4*/, 0x21})
    miss.push_back(b);  // ... ldc.i8 record
  EndWithRecordCall(&miss);
  miss[5] = uint8_t(miss.size() - 1 - 6);
  // HitCtx(slot): the increment of Hit, then Check(&last[slot], s_context.Value, slot).
  std::vector<uint8_t> hit = HelperBody(counters_base, increment_token_);
  std::vector<uint8_t> code(hit.begin() + 1, hit.end() - 1);  // Hit's code without its header and ret
  code.push_back(0x21);  // ldc.i8 last
  Put64(&code, reinterpret_cast<uint64_t>(last_context));
  const uint8_t address[] = {0xE0, 0x02, 0xE0, 0x1A, 0x5A, 0x58};  // conv.u ldarg.0 conv.u ldc.i4.4 mul add -> p
  code.insert(code.end(), std::begin(address), std::end(address));
  code.push_back(0x7E);  // ldsfld s_context
  Put32(&code, field);
  code.push_back(0x6F);  // callvirt get_Value
  Put32(&code, get);
  code.push_back(0x02);  // ldarg.0
  code.push_back(0x28);  // call Check (its MethodDef token is patched in below)
  size_t check_at = code.size();
  Put32(&code, 0);
  code.push_back(0x2A);  // ret

  struct Method {
    const char16_t* name;
    const uint8_t* sig;
    size_t sig_len;
    clr::DWORD flags;
    std::vector<uint8_t> body;
  };
  const clr::DWORD pub = clr::mdPublic | clr::mdStatic | clr::mdHideBySig;
  Method methods[] = {
      {u".cctor", kCctorSig, sizeof kCctorSig,
       clr::mdPrivate | clr::mdStatic | clr::mdHideBySig | clr::mdSpecialName | clr::mdRTSpecialName,
       FatBody(cctor, 0)},
      {u"Enter", kEnterSig, sizeof kEnterSig, pub, FatBody(enter, 0)},
      {u"Exit", kVoidIntSig, sizeof kVoidIntSig, pub, FatBody(exit, 0)},
      {u"Current", kCurrentSig, sizeof kCurrentSig, pub, FatBody(current, 0)},
      {u"Miss", kMissSig, sizeof kMissSig, pub, FatBody(miss, 0)},
      {u"Check", kCheckSig, sizeof kCheckSig, clr::mdPrivate | clr::mdStatic | clr::mdHideBySig, FatBody(check, 0)},
      {u"HitCtx", kVoidIntSig, sizeof kVoidIntSig, pub, {}},
  };
  ComPtr<clr::IMethodMalloc> alloc;
  hr = info->GetILFunctionBodyAllocator(corelib, alloc.Out());
  if (hr != clr::S_OK || !alloc) return *error = "GetILFunctionBodyAllocator(CoreLib) failed " + Hr(hr), false;
  clr::mdMethodDef check_token = 0;
  for (Method& m : methods) {
    clr::mdMethodDef token = 0;
    hr = emit->DefineMethod(probes_td_, m.name, m.flags, m.sig, clr::ULONG(m.sig_len), ctor_rva_,
                            clr::miIL | clr::miManaged, &token);
    if (hr != clr::S_OK) return *error = "DefineMethod(context helper) failed " + Hr(hr), false;
    if (m.body.empty()) {  // HitCtx, which calls Check, defined just before
      std::memcpy(&code[check_at], &check_token, 4);
      m.body = FatBody(code, 0);
    }
    check_token = token;
    void* mem = alloc->Alloc(static_cast<clr::ULONG>(m.body.size()));
    if (!mem) return *error = "IMethodMalloc::Alloc failed", false;
    std::memcpy(mem, m.body.data(), m.body.size());
    hr = info->SetILFunctionBody(corelib, token, static_cast<const uint8_t*>(mem));
    if (hr != clr::S_OK) return *error = "SetILFunctionBody(context helper) failed " + Hr(hr), false;
  }
  Log("per-test contexts: DotCov.Probes Enter/Exit/Current/Miss/HitCtx injected into CoreLib");
  contexts_ready_ = true;
  return true;
}

bool ProbeHelper::CoreLibTypeRef(clr::ICorProfilerInfo5* info, clr::ModuleID module, const char16_t* type,
                                 const char* type_name, ComPtr<clr::IMetaDataEmit>* emit, uint32_t* type_ref,
                                 std::string* error) {
  ComPtr<clr::IUnknown> unk;
  clr::HRESULT hr = info->GetModuleMetaData(module, clr::ofRead | clr::ofWrite, clr::IID_IMetaDataEmit, unk.Out());
  if (hr != clr::S_OK) return *error = "GetModuleMetaData failed " + Hr(hr), false;
  ComPtr<clr::IMetaDataAssemblyEmit> asm_emit;
  if (!unk.As(clr::IID_IMetaDataEmit, emit) || !unk.As(clr::IID_IMetaDataAssemblyEmit, &asm_emit))
    return *error = "module metadata is not writable", false;
  // (an existing identical AssemblyRef is reused: META_S_DUPLICATE)
  clr::ASSEMBLYMETADATA md{};
  md.usMajorVersion = version_[0];
  md.usMinorVersion = version_[1];
  md.usBuildNumber = version_[2];
  md.usRevisionNumber = version_[3];
  clr::mdAssemblyRef asm_ref = 0;
  hr = asm_emit->DefineAssemblyRef(public_key_.empty() ? nullptr : public_key_.data(),
                                   static_cast<clr::ULONG>(public_key_.size()), u"System.Private.CoreLib", &md,
                                   nullptr, 0, assembly_flags_, &asm_ref);
  if (hr < 0) return *error = "DefineAssemblyRef(System.Private.CoreLib) failed " + Hr(hr), false;
  hr = (*emit)->DefineTypeRefByName(asm_ref, type, type_ref);
  if (hr < 0) return *error = std::string("DefineTypeRefByName(") + type_name + ") failed " + Hr(hr), false;
  return true;
}

bool ProbeHelper::ReferenceInterlocked(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref,
                                       std::string* error) {
  if (!identity_ready_) return *error = "CoreLib's identity is not known", false;
  ComPtr<clr::IMetaDataEmit> emit;
  clr::mdTypeRef type_ref = 0;
  if (!CoreLibTypeRef(info, module, kInterlockedType, "System.Threading.Interlocked", &emit, &type_ref, error))
    return false;
  clr::HRESULT hr = emit->DefineMemberRef(type_ref, u"Increment", kIncrementSig, sizeof kIncrementSig, member_ref);
  if (hr < 0) return *error = "DefineMemberRef(Interlocked.Increment) failed " + Hr(hr), false;
  return true;
}

bool ProbeHelper::ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, uint32_t* member_ref,
                                std::string* error) {
  Refs refs;
  if (!ReferenceFrom(info, module, &refs, error)) return false;
  *member_ref = refs.hit;
  return true;
}

bool ProbeHelper::ReferenceFrom(clr::ICorProfilerInfo5* info, clr::ModuleID module, Refs* refs,
                                std::string* error) {
  if (!ready_) return *error = "the CoreLib helper is not available", false;
  ComPtr<clr::IMetaDataEmit> emit;
  clr::mdTypeRef type_ref = 0;
  if (!CoreLibTypeRef(info, module, kHelperType, "DotCov.Probes", &emit, &type_ref, error)) return false;
  clr::HRESULT hr = emit->DefineMemberRef(type_ref, kHelperMethod, kHelperSig, sizeof kHelperSig, &refs->hit);
  if (hr < 0) return *error = "DefineMemberRef(Hit) failed " + Hr(hr), false;
  if (contexts_ready_ &&
      ((hr = emit->DefineMemberRef(type_ref, u"HitCtx", kVoidIntSig, sizeof kVoidIntSig, &refs->hit_ctx)) < 0 ||
       (hr = emit->DefineMemberRef(type_ref, u"Enter", kEnterSig, sizeof kEnterSig, &refs->enter)) < 0 ||
       (hr = emit->DefineMemberRef(type_ref, u"Exit", kVoidIntSig, sizeof kVoidIntSig, &refs->exit)) < 0 ||
       (hr = emit->DefineMemberRef(type_ref, u"Current", kCurrentSig, sizeof kCurrentSig, &refs->current)) < 0 ||
       (hr = emit->DefineMemberRef(type_ref, u"Miss", kMissSig, sizeof kMissSig, &refs->miss)) < 0))
    return *error = "DefineMemberRef(context helper) failed " + Hr(hr), false;
  return true;
}

}  // namespace dotcov::agent
