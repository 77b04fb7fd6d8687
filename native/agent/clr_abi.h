// dotcov's own declarations of the CoreCLR profiling-API ABI (Linux x64 and arm64).
//
// Written for dotcov; no runtime header is included or copied.  Every vtable
// order, IID and constant was checked by hand against the public dotnet/runtime
// sources (src/coreclr/inc/corprof.idl, cor.h, corhdr.h,
// src/coreclr/pal/prebuilt/inc/corerror.h, src/coreclr/pal/prebuilt/idl/corprof_i.cpp).
//
// Rules that keep the layout right:
//  * each COM interface is a struct of pure virtuals in the exact order of the
//    runtime's interface definition, with single inheritance only;
//  * no destructors, data members or extra virtuals in these structs;
//  * on x64 SysV and AAPCS64 (Linux arm64), STDMETHODCALLTYPE is empty, so
//    plain virtual calls match (the same Itanium vtable layout on both).
// The "slots" comments give 0-based vtable indices (IUnknown owns 0..2).
// clr_abi_check.cpp checks struct sizes at compile time and, when built with
// -DDOTCOV_CLR_ABI_SELFTEST, the slot of every method at run time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace clr {

// ---------------------------------------------------------------------------
// Basic Win32/PAL types (LP64: the PAL's LONG/ULONG/DWORD are 32-bit).
// ---------------------------------------------------------------------------
using HRESULT = int32_t;
using ULONG = uint32_t;
using LONG = int32_t;
using DWORD = uint32_t;
using BOOL = int32_t;
using UINT = uint32_t;
using ULONG32 = uint32_t;
using USHORT = uint16_t;
using BYTE = uint8_t;
using UINT8 = uint8_t;
using UINT32 = uint32_t;
using UINT64 = uint64_t;
using WCHAR = char16_t;
using LPCWSTR = const char16_t*;
using LPWSTR = char16_t*;
using UINT_PTR = uintptr_t;
using SIZE_T = size_t;
using HANDLE = void*;
using PVOID = void*;
using LPCVOID = const void*;
using LPCBYTE = const uint8_t*;
using LPBYTE = uint8_t*;

struct GUID {
  uint32_t Data1;
  uint16_t Data2;
  uint16_t Data3;
  uint8_t Data4[8];
};
constexpr bool operator==(const GUID& a, const GUID& b) {
  if (a.Data1 != b.Data1 || a.Data2 != b.Data2 || a.Data3 != b.Data3) return false;
  for (int i = 0; i < 8; ++i)
    if (a.Data4[i] != b.Data4[i]) return false;
  return true;
}
constexpr bool operator!=(const GUID& a, const GUID& b) { return !(a == b); }
using IID = GUID;
using CLSID = GUID;
using REFIID = const GUID&;
using REFCLSID = const GUID&;
using REFGUID = const GUID&;
using LPCGUID = const GUID*;

// ---------------------------------------------------------------------------
// HRESULTs (winerror values as used by the PAL; CORPROF_E_*/META_E_* are
// FACILITY_URT (0x13) error codes from corerror.h).
// ---------------------------------------------------------------------------
inline constexpr HRESULT S_OK = 0;
inline constexpr HRESULT S_FALSE = 1;
inline constexpr HRESULT E_NOTIMPL = static_cast<HRESULT>(0x80004001u);
inline constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
inline constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
inline constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
inline constexpr HRESULT E_UNEXPECTED = static_cast<HRESULT>(0x8000FFFFu);
inline constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
inline constexpr HRESULT E_INVALIDARG = static_cast<HRESULT>(0x80070057u);
inline constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);

inline constexpr HRESULT CLDB_E_RECORD_NOTFOUND = static_cast<HRESULT>(0x80131130u);
inline constexpr HRESULT META_E_BAD_SIGNATURE = static_cast<HRESULT>(0x80131192u);
inline constexpr HRESULT CORPROF_E_FUNCTION_NOT_COMPILED = static_cast<HRESULT>(0x80131350u);
inline constexpr HRESULT CORPROF_E_DATAINCOMPLETE = static_cast<HRESULT>(0x80131351u);
inline constexpr HRESULT CORPROF_E_FUNCTION_NOT_IL = static_cast<HRESULT>(0x80131354u);
inline constexpr HRESULT CORPROF_E_NOT_MANAGED_THREAD = static_cast<HRESULT>(0x80131355u);
inline constexpr HRESULT CORPROF_E_CALL_ONLY_FROM_INIT = static_cast<HRESULT>(0x80131356u);
inline constexpr HRESULT CORPROF_E_NOT_YET_AVAILABLE = static_cast<HRESULT>(0x8013135Bu);
inline constexpr HRESULT CORPROF_E_UNSUPPORTED_CALL_SEQUENCE = static_cast<HRESULT>(0x80131363u);
inline constexpr HRESULT CORPROF_E_RUNTIME_UNINITIALIZED = static_cast<HRESULT>(0x80131371u);
inline constexpr HRESULT CORPROF_E_IMMUTABLE_FLAGS_SET = static_cast<HRESULT>(0x80131372u);
inline constexpr HRESULT CORPROF_E_PROFILER_NOT_YET_INITIALIZED = static_cast<HRESULT>(0x80131373u);
inline constexpr HRESULT CORPROF_E_INCONSISTENT_WITH_FLAGS = static_cast<HRESULT>(0x80131374u);
inline constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = static_cast<HRESULT>(0x80131375u);
inline constexpr HRESULT CORPROF_E_MODULE_IS_DYNAMIC = static_cast<HRESULT>(0x8013137Au);
inline constexpr HRESULT CORPROF_E_REJIT_NOT_ENABLED = static_cast<HRESULT>(0x8013137Cu);
inline constexpr HRESULT CORPROF_E_REJIT_INLINING_DISABLED = static_cast<HRESULT>(0x80131383u);

constexpr bool Succeeded(HRESULT hr) { return hr >= 0; }
constexpr bool Failed(HRESULT hr) { return hr < 0; }

// ---------------------------------------------------------------------------
// Profiler IDs (all UINT_PTR in corprof.idl).
// ---------------------------------------------------------------------------
using ProcessID = uintptr_t;
using AssemblyID = uintptr_t;
using AppDomainID = uintptr_t;
using ModuleID = uintptr_t;
using ClassID = uintptr_t;
using ThreadID = uintptr_t;
using ContextID = uintptr_t;
using FunctionID = uintptr_t;
using ObjectID = uintptr_t;
using GCHandleID = uintptr_t;
using COR_PRF_ELT_INFO = uintptr_t;
using ReJITID = uintptr_t;
using COR_PRF_FRAME_INFO = uintptr_t;
using EVENTPIPE_PROVIDER = uintptr_t;
using EVENTPIPE_EVENT = uintptr_t;
using EVENTPIPE_SESSION = uint64_t;
using ObjectHandleID = void**;

union FunctionIDOrClientID {
  FunctionID functionID;
  UINT_PTR clientID;
};

// ---------------------------------------------------------------------------
// Metadata tokens and signature blobs (corhdr.h).
// ---------------------------------------------------------------------------
using mdToken = uint32_t;
using mdModule = uint32_t;
using mdTypeRef = uint32_t;
using mdTypeDef = uint32_t;
using mdFieldDef = uint32_t;
using mdMethodDef = uint32_t;
using mdParamDef = uint32_t;
using mdInterfaceImpl = uint32_t;
using mdMemberRef = uint32_t;
using mdCustomAttribute = uint32_t;
using mdPermission = uint32_t;
using mdSignature = uint32_t;
using mdEvent = uint32_t;
using mdProperty = uint32_t;
using mdModuleRef = uint32_t;
using mdAssembly = uint32_t;
using mdAssemblyRef = uint32_t;
using mdFile = uint32_t;
using mdExportedType = uint32_t;
using mdManifestResource = uint32_t;
using mdTypeSpec = uint32_t;
using mdGenericParam = uint32_t;
using mdMethodSpec = uint32_t;
using mdGenericParamConstraint = uint32_t;
using mdString = uint32_t;
using mdCPToken = uint32_t;
using RID = uint32_t;

using COR_SIGNATURE = uint8_t;
using PCOR_SIGNATURE = uint8_t*;
using PCCOR_SIGNATURE = const uint8_t*;
using HCORENUM = void*;
using MDUTF8CSTR = const char*;
using UVCP_CONSTANT = const void*;
using CorElementType = uint32_t;  // corprof.idl: typedef ULONG CorElementType
using CorSaveSize = uint32_t;     // enum (cssAccurate/cssQuick), int-sized

// Token types (CorTokenType).
inline constexpr uint32_t mdtModule = 0x00000000;
inline constexpr uint32_t mdtTypeRef = 0x01000000;
inline constexpr uint32_t mdtTypeDef = 0x02000000;
inline constexpr uint32_t mdtFieldDef = 0x04000000;
inline constexpr uint32_t mdtMethodDef = 0x06000000;
inline constexpr uint32_t mdtParamDef = 0x08000000;
inline constexpr uint32_t mdtInterfaceImpl = 0x09000000;
inline constexpr uint32_t mdtMemberRef = 0x0A000000;
inline constexpr uint32_t mdtCustomAttribute = 0x0C000000;
inline constexpr uint32_t mdtPermission = 0x0E000000;
inline constexpr uint32_t mdtSignature = 0x11000000;
inline constexpr uint32_t mdtEvent = 0x14000000;
inline constexpr uint32_t mdtProperty = 0x17000000;
inline constexpr uint32_t mdtMethodImpl = 0x19000000;
inline constexpr uint32_t mdtModuleRef = 0x1A000000;
inline constexpr uint32_t mdtTypeSpec = 0x1B000000;
inline constexpr uint32_t mdtAssembly = 0x20000000;
inline constexpr uint32_t mdtAssemblyRef = 0x23000000;
inline constexpr uint32_t mdtFile = 0x26000000;
inline constexpr uint32_t mdtExportedType = 0x27000000;
inline constexpr uint32_t mdtManifestResource = 0x28000000;
inline constexpr uint32_t mdtGenericParam = 0x2A000000;
inline constexpr uint32_t mdtMethodSpec = 0x2B000000;
inline constexpr uint32_t mdtGenericParamConstraint = 0x2C000000;
inline constexpr uint32_t mdtString = 0x70000000;
inline constexpr uint32_t mdtName = 0x71000000;
inline constexpr uint32_t mdtBaseType = 0x72000000;

inline constexpr mdToken mdTokenNil = 0;
constexpr RID RidFromToken(mdToken tk) { return tk & 0x00FFFFFFu; }
constexpr uint32_t TypeFromToken(mdToken tk) { return tk & 0xFF000000u; }
constexpr mdToken TokenFromRid(RID rid, uint32_t type) { return rid | type; }
constexpr bool IsNilToken(mdToken tk) { return RidFromToken(tk) == 0; }

// Metadata scope open flags (CorOpenFlags).
inline constexpr DWORD ofRead = 0x00000000;
inline constexpr DWORD ofWrite = 0x00000001;
inline constexpr DWORD ofReadWriteMask = 0x00000001;
inline constexpr DWORD ofCopyMemory = 0x00000002;
inline constexpr DWORD ofReadOnly = 0x00000010;
inline constexpr DWORD ofTakeOwnership = 0x00000020;
inline constexpr DWORD ofNoTypeLib = 0x00000080;
inline constexpr DWORD ofNoTransform = 0x00001000;

// TypeDef attributes (CorTypeAttr).
inline constexpr DWORD tdVisibilityMask = 0x00000007;
inline constexpr DWORD tdNotPublic = 0x00000000;
inline constexpr DWORD tdPublic = 0x00000001;
inline constexpr DWORD tdNestedPublic = 0x00000002;
inline constexpr DWORD tdNestedPrivate = 0x00000003;
inline constexpr DWORD tdNestedFamily = 0x00000004;
inline constexpr DWORD tdNestedAssembly = 0x00000005;
inline constexpr DWORD tdNestedFamANDAssem = 0x00000006;
inline constexpr DWORD tdNestedFamORAssem = 0x00000007;
inline constexpr DWORD tdLayoutMask = 0x00000018;
inline constexpr DWORD tdAutoLayout = 0x00000000;
inline constexpr DWORD tdSequentialLayout = 0x00000008;
inline constexpr DWORD tdExplicitLayout = 0x00000010;
inline constexpr DWORD tdClassSemanticsMask = 0x00000020;
inline constexpr DWORD tdClass = 0x00000000;
inline constexpr DWORD tdInterface = 0x00000020;
inline constexpr DWORD tdAbstract = 0x00000080;
inline constexpr DWORD tdSealed = 0x00000100;
inline constexpr DWORD tdSpecialName = 0x00000400;
inline constexpr DWORD tdRTSpecialName = 0x00000800;
inline constexpr DWORD tdImport = 0x00001000;
inline constexpr DWORD tdSerializable = 0x00002000;
inline constexpr DWORD tdWindowsRuntime = 0x00004000;
inline constexpr DWORD tdStringFormatMask = 0x00030000;
inline constexpr DWORD tdAnsiClass = 0x00000000;
inline constexpr DWORD tdUnicodeClass = 0x00010000;
inline constexpr DWORD tdAutoClass = 0x00020000;
inline constexpr DWORD tdCustomFormatClass = 0x00030000;
inline constexpr DWORD tdHasSecurity = 0x00040000;
inline constexpr DWORD tdBeforeFieldInit = 0x00100000;
inline constexpr DWORD tdForwarder = 0x00200000;
inline constexpr DWORD tdCustomFormatMask = 0x00C00000;

// MethodDef attributes (CorMethodAttr).
inline constexpr DWORD mdMemberAccessMask = 0x0007;
inline constexpr DWORD mdPrivateScope = 0x0000;
inline constexpr DWORD mdPrivate = 0x0001;
inline constexpr DWORD mdFamANDAssem = 0x0002;
inline constexpr DWORD mdAssem = 0x0003;
inline constexpr DWORD mdFamily = 0x0004;
inline constexpr DWORD mdFamORAssem = 0x0005;
inline constexpr DWORD mdPublic = 0x0006;
inline constexpr DWORD mdUnmanagedExport = 0x0008;
inline constexpr DWORD mdStatic = 0x0010;
inline constexpr DWORD mdFinal = 0x0020;
inline constexpr DWORD mdVirtual = 0x0040;
inline constexpr DWORD mdHideBySig = 0x0080;
inline constexpr DWORD mdVtableLayoutMask = 0x0100;
inline constexpr DWORD mdReuseSlot = 0x0000;
inline constexpr DWORD mdNewSlot = 0x0100;
inline constexpr DWORD mdCheckAccessOnOverride = 0x0200;
inline constexpr DWORD mdAbstract = 0x0400;
inline constexpr DWORD mdSpecialName = 0x0800;
inline constexpr DWORD mdRTSpecialName = 0x1000;
inline constexpr DWORD mdPinvokeImpl = 0x2000;
inline constexpr DWORD mdHasSecurity = 0x4000;
inline constexpr DWORD mdRequireSecObject = 0x8000;

// MethodImpl attributes (CorMethodImpl).
inline constexpr DWORD miCodeTypeMask = 0x0003;
inline constexpr DWORD miIL = 0x0000;
inline constexpr DWORD miNative = 0x0001;
inline constexpr DWORD miOPTIL = 0x0002;
inline constexpr DWORD miRuntime = 0x0003;
inline constexpr DWORD miManagedMask = 0x0004;
inline constexpr DWORD miUnmanaged = 0x0004;
inline constexpr DWORD miManaged = 0x0000;
inline constexpr DWORD miNoInlining = 0x0008;
inline constexpr DWORD miForwardRef = 0x0010;
inline constexpr DWORD miSynchronized = 0x0020;
inline constexpr DWORD miNoOptimization = 0x0040;
inline constexpr DWORD miPreserveSig = 0x0080;
inline constexpr DWORD miAggressiveInlining = 0x0100;
inline constexpr DWORD miAggressiveOptimization = 0x0200;
inline constexpr DWORD miInternalCall = 0x1000;

// FieldDef attributes (CorFieldAttr).
inline constexpr DWORD fdFieldAccessMask = 0x0007;
inline constexpr DWORD fdPrivateScope = 0x0000;
inline constexpr DWORD fdPrivate = 0x0001;
inline constexpr DWORD fdFamANDAssem = 0x0002;
inline constexpr DWORD fdAssembly = 0x0003;
inline constexpr DWORD fdFamily = 0x0004;
inline constexpr DWORD fdFamORAssem = 0x0005;
inline constexpr DWORD fdPublic = 0x0006;
inline constexpr DWORD fdStatic = 0x0010;
inline constexpr DWORD fdInitOnly = 0x0020;
inline constexpr DWORD fdLiteral = 0x0040;
inline constexpr DWORD fdNotSerialized = 0x0080;
inline constexpr DWORD fdHasFieldRVA = 0x0100;
inline constexpr DWORD fdSpecialName = 0x0200;
inline constexpr DWORD fdRTSpecialName = 0x0400;
inline constexpr DWORD fdHasFieldMarshal = 0x1000;
inline constexpr DWORD fdPinvokeImpl = 0x2000;
inline constexpr DWORD fdHasDefault = 0x8000;

// Param attributes (CorParamAttr).
inline constexpr DWORD pdIn = 0x0001;
inline constexpr DWORD pdOut = 0x0002;
inline constexpr DWORD pdOptional = 0x0010;
inline constexpr DWORD pdHasDefault = 0x1000;
inline constexpr DWORD pdHasFieldMarshal = 0x2000;

// Assembly / AssemblyRef flags (CorAssemblyFlags).
inline constexpr DWORD afPublicKey = 0x0001;
inline constexpr DWORD afPA_None = 0x0000;
inline constexpr DWORD afPA_MSIL = 0x0010;
inline constexpr DWORD afPA_x86 = 0x0020;
inline constexpr DWORD afPA_IA64 = 0x0030;
inline constexpr DWORD afPA_AMD64 = 0x0040;
inline constexpr DWORD afPA_ARM = 0x0050;
inline constexpr DWORD afPA_ARM64 = 0x0060;
inline constexpr DWORD afPA_NoPlatform = 0x0070;
inline constexpr DWORD afPA_Specified = 0x0080;
inline constexpr DWORD afPA_Mask = 0x0070;
inline constexpr DWORD afPA_FullMask = 0x00F0;
inline constexpr DWORD afRetargetable = 0x0100;
inline constexpr DWORD afContentType_Default = 0x0000;
inline constexpr DWORD afContentType_WindowsRuntime = 0x0200;
inline constexpr DWORD afContentType_Mask = 0x0E00;
inline constexpr DWORD afDisableJITcompileOptimizer = 0x4000;
inline constexpr DWORD afEnableJITcompileTracking = 0x8000;

// Signature calling conventions (CorCallingConvention).
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_DEFAULT = 0x00;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_C = 0x01;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_STDCALL = 0x02;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_THISCALL = 0x03;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_FASTCALL = 0x04;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_VARARG = 0x05;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_FIELD = 0x06;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_LOCAL_SIG = 0x07;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_PROPERTY = 0x08;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_UNMANAGED = 0x09;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_GENERICINST = 0x0A;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_NATIVEVARARG = 0x0B;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_MASK = 0x0F;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_GENERIC = 0x10;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_HASTHIS = 0x20;
inline constexpr uint8_t IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS = 0x40;

// Element types (CorElementType), one byte each in signatures.
inline constexpr uint8_t ELEMENT_TYPE_END = 0x00;
inline constexpr uint8_t ELEMENT_TYPE_VOID = 0x01;
inline constexpr uint8_t ELEMENT_TYPE_BOOLEAN = 0x02;
inline constexpr uint8_t ELEMENT_TYPE_CHAR = 0x03;
inline constexpr uint8_t ELEMENT_TYPE_I1 = 0x04;
inline constexpr uint8_t ELEMENT_TYPE_U1 = 0x05;
inline constexpr uint8_t ELEMENT_TYPE_I2 = 0x06;
inline constexpr uint8_t ELEMENT_TYPE_U2 = 0x07;
inline constexpr uint8_t ELEMENT_TYPE_I4 = 0x08;
inline constexpr uint8_t ELEMENT_TYPE_U4 = 0x09;
inline constexpr uint8_t ELEMENT_TYPE_I8 = 0x0A;
inline constexpr uint8_t ELEMENT_TYPE_U8 = 0x0B;
inline constexpr uint8_t ELEMENT_TYPE_R4 = 0x0C;
inline constexpr uint8_t ELEMENT_TYPE_R8 = 0x0D;
inline constexpr uint8_t ELEMENT_TYPE_STRING = 0x0E;
inline constexpr uint8_t ELEMENT_TYPE_PTR = 0x0F;
inline constexpr uint8_t ELEMENT_TYPE_BYREF = 0x10;
inline constexpr uint8_t ELEMENT_TYPE_VALUETYPE = 0x11;
inline constexpr uint8_t ELEMENT_TYPE_CLASS = 0x12;
inline constexpr uint8_t ELEMENT_TYPE_VAR = 0x13;
inline constexpr uint8_t ELEMENT_TYPE_ARRAY = 0x14;
inline constexpr uint8_t ELEMENT_TYPE_GENERICINST = 0x15;
inline constexpr uint8_t ELEMENT_TYPE_TYPEDBYREF = 0x16;
inline constexpr uint8_t ELEMENT_TYPE_I = 0x18;
inline constexpr uint8_t ELEMENT_TYPE_U = 0x19;
inline constexpr uint8_t ELEMENT_TYPE_FNPTR = 0x1B;
inline constexpr uint8_t ELEMENT_TYPE_OBJECT = 0x1C;
inline constexpr uint8_t ELEMENT_TYPE_SZARRAY = 0x1D;
inline constexpr uint8_t ELEMENT_TYPE_MVAR = 0x1E;
inline constexpr uint8_t ELEMENT_TYPE_CMOD_REQD = 0x1F;
inline constexpr uint8_t ELEMENT_TYPE_CMOD_OPT = 0x20;
inline constexpr uint8_t ELEMENT_TYPE_INTERNAL = 0x21;
inline constexpr uint8_t ELEMENT_TYPE_MAX = 0x22;
inline constexpr uint8_t ELEMENT_TYPE_MODIFIER = 0x40;
inline constexpr uint8_t ELEMENT_TYPE_SENTINEL = 0x41;
inline constexpr uint8_t ELEMENT_TYPE_PINNED = 0x45;

// IL method header flags (CorILMethodFlags) and EH section/clause flags.
inline constexpr uint16_t CorILMethod_TinyFormat = 0x0002;
inline constexpr uint16_t CorILMethod_FatFormat = 0x0003;
inline constexpr uint16_t CorILMethod_TinyFormat1 = 0x0006;
inline constexpr uint16_t CorILMethod_FormatMask = 0x0007;
inline constexpr uint16_t CorILMethod_MoreSects = 0x0008;
inline constexpr uint16_t CorILMethod_InitLocals = 0x0010;
inline constexpr uint8_t CorILMethod_Sect_EHTable = 0x01;
inline constexpr uint8_t CorILMethod_Sect_OptILTable = 0x02;
inline constexpr uint8_t CorILMethod_Sect_KindMask = 0x3F;
inline constexpr uint8_t CorILMethod_Sect_FatFormat = 0x40;
inline constexpr uint8_t CorILMethod_Sect_MoreSects = 0x80;
inline constexpr uint32_t COR_ILEXCEPTION_CLAUSE_NONE = 0x0000;
inline constexpr uint32_t COR_ILEXCEPTION_CLAUSE_FILTER = 0x0001;
inline constexpr uint32_t COR_ILEXCEPTION_CLAUSE_FINALLY = 0x0002;
inline constexpr uint32_t COR_ILEXCEPTION_CLAUSE_FAULT = 0x0004;
inline constexpr uint32_t COR_ILEXCEPTION_CLAUSE_DUPLICATED = 0x0008;

// ---------------------------------------------------------------------------
// Plain structs.
// ---------------------------------------------------------------------------
struct OSINFO {
  DWORD dwOSPlatformId;
  DWORD dwOSMajorVersion;
  DWORD dwOSMinorVersion;
};

struct ASSEMBLYMETADATA {
  USHORT usMajorVersion;
  USHORT usMinorVersion;
  USHORT usBuildNumber;
  USHORT usRevisionNumber;
  LPWSTR szLocale;
  ULONG cbLocale;  // in/out, in wide chars
  DWORD* rProcessor;
  ULONG ulProcessor;
  OSINFO* rOS;
  ULONG ulOS;
};

struct COR_IL_MAP {
  ULONG32 oldOffset;
  ULONG32 newOffset;
  BOOL fAccurate;
};

struct COR_DEBUG_IL_TO_NATIVE_MAP {
  ULONG32 ilOffset;  // or NO_MAPPING (-1), PROLOG (-2), EPILOG (-3)
  ULONG32 nativeStartOffset;
  ULONG32 nativeEndOffset;
};

struct COR_FIELD_OFFSET {
  mdFieldDef ridOfField;
  ULONG ulOffset;
};

struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
  UINT_PTR startAddress;
  ULONG length;
};

struct COR_PRF_FUNCTION_ARGUMENT_INFO {
  ULONG numRanges;
  ULONG totalArgumentSize;
  COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];  // really numRanges entries
};

struct COR_PRF_CODE_INFO {
  UINT_PTR startAddress;
  SIZE_T size;
};

struct COR_PRF_FUNCTION {
  FunctionID functionId;
  ReJITID reJitId;
};

struct COR_PRF_METHOD {
  ModuleID moduleId;
  mdMethodDef methodId;
};

struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
  void* pbPublicKeyOrToken;
  ULONG cbPublicKeyOrToken;
  LPCWSTR szName;
  ASSEMBLYMETADATA* pMetaData;
  void* pbHashValue;
  ULONG cbHashValue;
  DWORD dwAssemblyRefFlags;
};

struct COR_PRF_GC_GENERATION_RANGE {
  int32_t generation;  // COR_PRF_GC_GENERATION
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

struct COR_PRF_EX_CLAUSE_INFO {
  int32_t clauseType;  // COR_PRF_CLAUSE_TYPE
  UINT_PTR programCounter;
  UINT_PTR framePointer;
  UINT_PTR shadowStackPointer;
};

// Opaque types only ever seen through pointers here.
struct COR_SECATTR;
struct IStream;
struct IMapToken;

// ---------------------------------------------------------------------------
// Enumerations passed by value (C enums: 4 bytes).
// ---------------------------------------------------------------------------
using COR_PRF_JIT_CACHE = int32_t;
inline constexpr COR_PRF_JIT_CACHE COR_PRF_CACHED_FUNCTION_FOUND = 0;
inline constexpr COR_PRF_JIT_CACHE COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1;

using COR_PRF_TRANSITION_REASON = int32_t;
inline constexpr COR_PRF_TRANSITION_REASON COR_PRF_TRANSITION_CALL = 0;
inline constexpr COR_PRF_TRANSITION_REASON COR_PRF_TRANSITION_RETURN = 1;

using COR_PRF_SUSPEND_REASON = int32_t;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_OTHER = 0;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_GC = 1;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_SHUTDOWN = 4;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_GC_PREP = 7;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_REJIT = 8;
inline constexpr COR_PRF_SUSPEND_REASON COR_PRF_SUSPEND_FOR_PROFILER = 9;

using COR_PRF_GC_REASON = int32_t;
inline constexpr COR_PRF_GC_REASON COR_PRF_GC_OTHER = 0;
inline constexpr COR_PRF_GC_REASON COR_PRF_GC_INDUCED = 1;

using COR_PRF_GC_ROOT_KIND = int32_t;
inline constexpr COR_PRF_GC_ROOT_KIND COR_PRF_GC_ROOT_OTHER = 0;
inline constexpr COR_PRF_GC_ROOT_KIND COR_PRF_GC_ROOT_STACK = 1;
inline constexpr COR_PRF_GC_ROOT_KIND COR_PRF_GC_ROOT_FINALIZER = 2;
inline constexpr COR_PRF_GC_ROOT_KIND COR_PRF_GC_ROOT_HANDLE = 3;

using COR_PRF_GC_ROOT_FLAGS = int32_t;
inline constexpr COR_PRF_GC_ROOT_FLAGS COR_PRF_GC_ROOT_PINNING = 0x1;
inline constexpr COR_PRF_GC_ROOT_FLAGS COR_PRF_GC_ROOT_WEAKREF = 0x2;
inline constexpr COR_PRF_GC_ROOT_FLAGS COR_PRF_GC_ROOT_INTERIOR = 0x4;
inline constexpr COR_PRF_GC_ROOT_FLAGS COR_PRF_GC_ROOT_REFCOUNTED = 0x8;

inline constexpr DWORD COR_PRF_FINALIZER_CRITICAL = 0x1;

using COR_PRF_GC_GENERATION = int32_t;
inline constexpr COR_PRF_GC_GENERATION COR_PRF_GC_GEN_0 = 0;
inline constexpr COR_PRF_GC_GENERATION COR_PRF_GC_GEN_1 = 1;
inline constexpr COR_PRF_GC_GENERATION COR_PRF_GC_GEN_2 = 2;
inline constexpr COR_PRF_GC_GENERATION COR_PRF_GC_LARGE_OBJECT_HEAP = 3;
inline constexpr COR_PRF_GC_GENERATION COR_PRF_GC_PINNED_OBJECT_HEAP = 4;

using COR_PRF_CLAUSE_TYPE = int32_t;
inline constexpr COR_PRF_CLAUSE_TYPE COR_PRF_CLAUSE_NONE = 0;
inline constexpr COR_PRF_CLAUSE_TYPE COR_PRF_CLAUSE_FILTER = 1;
inline constexpr COR_PRF_CLAUSE_TYPE COR_PRF_CLAUSE_CATCH = 2;
inline constexpr COR_PRF_CLAUSE_TYPE COR_PRF_CLAUSE_FINALLY = 3;

using COR_PRF_STATIC_TYPE = int32_t;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_NOT_A_STATIC = 0x0;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_THREAD_STATIC = 0x2;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_CONTEXT_STATIC = 0x4;
inline constexpr COR_PRF_STATIC_TYPE COR_PRF_FIELD_RVA_STATIC = 0x8;

using COR_PRF_RUNTIME_TYPE = int32_t;
inline constexpr COR_PRF_RUNTIME_TYPE COR_PRF_DESKTOP_CLR = 0x1;
inline constexpr COR_PRF_RUNTIME_TYPE COR_PRF_CORE_CLR = 0x2;

inline constexpr ULONG32 COR_PRF_SNAPSHOT_DEFAULT = 0x0;
inline constexpr ULONG32 COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1;
inline constexpr ULONG32 COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2;

// Codegen flags for ICorProfilerFunctionControl::SetCodegenFlags.
inline constexpr DWORD COR_PRF_CODEGEN_DISABLE_INLINING = 0x0001;
inline constexpr DWORD COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x0002;
inline constexpr DWORD COR_PRF_CODEGEN_DEBUG_INFO = 0x0003;  // sic: the runtime's value

// Flags for ICorProfilerInfo10::RequestReJITWithInliners.
inline constexpr DWORD COR_PRF_REJIT_BLOCK_INLINING = 0x1;
inline constexpr DWORD COR_PRF_REJIT_INLINING_CALLBACKS = 0x2;

// COR_PRF_MISC.
inline constexpr uint32_t PROFILER_PARENT_UNKNOWN = 0xFFFFFFFD;
inline constexpr uint32_t PROFILER_GLOBAL_CLASS = 0xFFFFFFFE;
inline constexpr uint32_t PROFILER_GLOBAL_MODULE = 0xFFFFFFFF;

// IL-to-native map special offsets (CorDebugIlToNativeMappingTypes).
inline constexpr ULONG32 NO_MAPPING = static_cast<ULONG32>(-1);
inline constexpr ULONG32 PROLOG = static_cast<ULONG32>(-2);
inline constexpr ULONG32 EPILOG = static_cast<ULONG32>(-3);

// GetModuleInfo2 flags (COR_PRF_MODULE_FLAGS).
inline constexpr DWORD COR_PRF_MODULE_DISK = 0x00000001;
inline constexpr DWORD COR_PRF_MODULE_NGEN = 0x00000002;  // also set for ReadyToRun images
inline constexpr DWORD COR_PRF_MODULE_DYNAMIC = 0x00000004;
inline constexpr DWORD COR_PRF_MODULE_COLLECTIBLE = 0x00000008;
inline constexpr DWORD COR_PRF_MODULE_RESOURCE = 0x00000010;
inline constexpr DWORD COR_PRF_MODULE_FLAT_LAYOUT = 0x00000020;
inline constexpr DWORD COR_PRF_MODULE_WINDOWS_RUNTIME = 0x00000040;

// Event mask, low word (COR_PRF_MONITOR) — SetEventMask / SetEventMask2(low, ...).
inline constexpr DWORD COR_PRF_MONITOR_NONE = 0x00000000;
inline constexpr DWORD COR_PRF_MONITOR_FUNCTION_UNLOADS = 0x00000001;
inline constexpr DWORD COR_PRF_MONITOR_CLASS_LOADS = 0x00000002;
inline constexpr DWORD COR_PRF_MONITOR_MODULE_LOADS = 0x00000004;
inline constexpr DWORD COR_PRF_MONITOR_ASSEMBLY_LOADS = 0x00000008;
inline constexpr DWORD COR_PRF_MONITOR_APPDOMAIN_LOADS = 0x00000010;
inline constexpr DWORD COR_PRF_MONITOR_JIT_COMPILATION = 0x00000020;
inline constexpr DWORD COR_PRF_MONITOR_EXCEPTIONS = 0x00000040;
inline constexpr DWORD COR_PRF_MONITOR_GC = 0x00000080;
inline constexpr DWORD COR_PRF_MONITOR_OBJECT_ALLOCATED = 0x00000100;
inline constexpr DWORD COR_PRF_MONITOR_THREADS = 0x00000200;
inline constexpr DWORD COR_PRF_MONITOR_REMOTING = 0x00000400;
inline constexpr DWORD COR_PRF_MONITOR_CODE_TRANSITIONS = 0x00000800;
inline constexpr DWORD COR_PRF_MONITOR_ENTERLEAVE = 0x00001000;
inline constexpr DWORD COR_PRF_MONITOR_CCW = 0x00002000;
inline constexpr DWORD COR_PRF_MONITOR_REMOTING_COOKIE = 0x00004000 | COR_PRF_MONITOR_REMOTING;
inline constexpr DWORD COR_PRF_MONITOR_REMOTING_ASYNC = 0x00008000 | COR_PRF_MONITOR_REMOTING;
inline constexpr DWORD COR_PRF_MONITOR_SUSPENDS = 0x00010000;
inline constexpr DWORD COR_PRF_MONITOR_CACHE_SEARCHES = 0x00020000;
inline constexpr DWORD COR_PRF_ENABLE_REJIT = 0x00040000;
inline constexpr DWORD COR_PRF_ENABLE_INPROC_DEBUGGING = 0x00080000;
inline constexpr DWORD COR_PRF_ENABLE_JIT_MAPS = 0x00100000;
inline constexpr DWORD COR_PRF_DISABLE_INLINING = 0x00200000;
inline constexpr DWORD COR_PRF_DISABLE_OPTIMIZATIONS = 0x00400000;
inline constexpr DWORD COR_PRF_ENABLE_OBJECT_ALLOCATED = 0x00800000;
inline constexpr DWORD COR_PRF_MONITOR_CLR_EXCEPTIONS = 0x01000000;
inline constexpr DWORD COR_PRF_MONITOR_ALL = 0x0107FFFF;
inline constexpr DWORD COR_PRF_ENABLE_FUNCTION_ARGS = 0x02000000;
inline constexpr DWORD COR_PRF_ENABLE_FUNCTION_RETVAL = 0x04000000;
inline constexpr DWORD COR_PRF_ENABLE_FRAME_INFO = 0x08000000;
inline constexpr DWORD COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000;
inline constexpr DWORD COR_PRF_USE_PROFILE_IMAGES = 0x20000000;
inline constexpr DWORD COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST = 0x40000000;
inline constexpr DWORD COR_PRF_DISABLE_ALL_NGEN_IMAGES = 0x80000000;
inline constexpr DWORD COR_PRF_ALL = 0x8FFFFFFF;
inline constexpr DWORD COR_PRF_REQUIRE_PROFILE_IMAGE =
    COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE;
inline constexpr DWORD COR_PRF_ALLOWABLE_AFTER_ATTACH =
    COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
    COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC |
    COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |
    COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
    COR_PRF_ENABLE_REJIT;
inline constexpr DWORD COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER =
    COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_MODULE_LOADS |
    COR_PRF_MONITOR_ASSEMBLY_LOADS | COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |
    COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS |
    COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS |
    COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
    COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_CLR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT |
    COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES;
// Flags that can only be set from Initialize.
inline constexpr DWORD COR_PRF_MONITOR_IMMUTABLE =
    COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING | COR_PRF_MONITOR_REMOTING_COOKIE |
    COR_PRF_MONITOR_REMOTING_ASYNC | COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS |
    COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL |
    COR_PRF_ENABLE_FRAME_INFO | COR_PRF_USE_PROFILE_IMAGES |
    COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST | COR_PRF_DISABLE_ALL_NGEN_IMAGES;

// Event mask, high word (COR_PRF_HIGH_MONITOR) — SetEventMask2(..., high).
inline constexpr DWORD COR_PRF_HIGH_MONITOR_NONE = 0x00000000;
inline constexpr DWORD COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES = 0x00000001;  // no longer checked
inline constexpr DWORD COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED = 0x00000002;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS = 0x00000004;
inline constexpr DWORD COR_PRF_HIGH_DISABLE_TIERED_COMPILATION = 0x00000008;
inline constexpr DWORD COR_PRF_HIGH_BASIC_GC = 0x00000010;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS = 0x00000020;
inline constexpr DWORD COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE = 0x00000000;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED = 0x00000040;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_EVENT_PIPE = 0x00000080;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED = 0x00000100;
inline constexpr DWORD COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH =
    COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
    COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |
    COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
inline constexpr DWORD COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER =
    COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
    COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |
    COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
    COR_PRF_HIGH_MONITOR_EVENT_PIPE;
inline constexpr DWORD COR_PRF_HIGH_MONITOR_IMMUTABLE = COR_PRF_HIGH_DISABLE_TIERED_COMPILATION;

// ---------------------------------------------------------------------------
// Function types the runtime calls back (hooks, mappers, stack walks).
// Used through pointers, as in the runtime's declarations.
// ---------------------------------------------------------------------------
using FunctionIDMapper = UINT_PTR(FunctionID funcId, BOOL* pbHookFunction);
using FunctionIDMapper2 = UINT_PTR(FunctionID funcId, void* clientData, BOOL* pbHookFunction);
using FunctionEnter = void(FunctionID funcID);
using FunctionLeave = void(FunctionID funcID);
using FunctionTailcall = void(FunctionID funcID);
using FunctionEnter2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_INFO* argumentInfo);
using FunctionLeave2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_RANGE* retvalRange);
using FunctionTailcall2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);
using FunctionEnter3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionLeave3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionTailcall3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionEnter3WithInfo = void(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
using FunctionLeave3WithInfo = void(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
using FunctionTailcall3WithInfo = void(FunctionIDOrClientID functionIDOrClientID, COR_PRF_ELT_INFO eltInfo);
using StackSnapshotCallback = HRESULT(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
                                      ULONG32 contextSize, BYTE context[], void* clientData);
using ObjectReferenceCallback = BOOL (*)(ObjectID root, ObjectID* reference, void* clientData);

// ---------------------------------------------------------------------------
// Interface IDs.
// ---------------------------------------------------------------------------
inline constexpr GUID IID_IUnknown = {0x00000000, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
inline constexpr GUID IID_IClassFactory = {0x00000001, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};

inline constexpr GUID IID_ICorProfilerCallback = {0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
inline constexpr GUID IID_ICorProfilerCallback2 = {0x8A8CC829, 0xCCF2, 0x49FE, {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
inline constexpr GUID IID_ICorProfilerCallback3 = {0x4FD2ED52, 0x7731, 0x4B8D, {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
inline constexpr GUID IID_ICorProfilerCallback4 = {0x7B63B2E3, 0x107D, 0x4D48, {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
inline constexpr GUID IID_ICorProfilerCallback5 = {0x8DFBA405, 0x8C9F, 0x45F8, {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
inline constexpr GUID IID_ICorProfilerCallback6 = {0xFC13DF4B, 0x4448, 0x4F4F, {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
inline constexpr GUID IID_ICorProfilerCallback7 = {0xF76A2DBA, 0x1D52, 0x4539, {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
inline constexpr GUID IID_ICorProfilerCallback8 = {0x5BED9B15, 0xC079, 0x4D47, {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
inline constexpr GUID IID_ICorProfilerCallback9 = {0x27583EC3, 0xC8F5, 0x482F, {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
inline constexpr GUID IID_ICorProfilerCallback10 = {0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
inline constexpr GUID IID_ICorProfilerCallback11 = {0x42350846, 0xAAED, 0x47F7, {0xB1, 0x28, 0xFD, 0x0C, 0x98, 0x88, 0x1C, 0xDE}};

inline constexpr GUID IID_ICorProfilerInfo = {0x28B5557D, 0x3F3F, 0x48B4, {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}};
inline constexpr GUID IID_ICorProfilerInfo2 = {0xCC0935CD, 0xA518, 0x487D, {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}};
inline constexpr GUID IID_ICorProfilerInfo3 = {0xB555ED4F, 0x452A, 0x4E54, {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}};
inline constexpr GUID IID_ICorProfilerInfo4 = {0x0D8FDCAA, 0x6257, 0x47BF, {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}};
inline constexpr GUID IID_ICorProfilerInfo5 = {0x07602928, 0xCE38, 0x4B83, {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}};
inline constexpr GUID IID_ICorProfilerInfo6 = {0xF30A070D, 0xBFFB, 0x46A7, {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}};
inline constexpr GUID IID_ICorProfilerInfo7 = {0x9AEECC0D, 0x63E0, 0x4187, {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}};
inline constexpr GUID IID_ICorProfilerInfo8 = {0xC5AC80A6, 0x782E, 0x4716, {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}};
inline constexpr GUID IID_ICorProfilerInfo9 = {0x008170DB, 0xF8CC, 0x4796, {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}};
inline constexpr GUID IID_ICorProfilerInfo10 = {0x2F1B5152, 0xC869, 0x40C9, {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
inline constexpr GUID IID_ICorProfilerInfo11 = {0x06398876, 0x8987, 0x4154, {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}};

inline constexpr GUID IID_ICorProfilerObjectEnum = {0x2C6269BD, 0x2D13, 0x4321, {0xAE, 0x12, 0x66, 0x86, 0x36, 0x5F, 0xD6, 0xAF}};
inline constexpr GUID IID_ICorProfilerFunctionEnum = {0xFF71301A, 0xB994, 0x429D, {0xA1, 0x0B, 0xB3, 0x45, 0xA6, 0x52, 0x80, 0xEF}};
inline constexpr GUID IID_ICorProfilerModuleEnum = {0xB0266D75, 0x2081, 0x4493, {0xAF, 0x7F, 0x02, 0x8B, 0xA3, 0x4D, 0xB8, 0x91}};
inline constexpr GUID IID_ICorProfilerThreadEnum = {0x571194F7, 0x25ED, 0x419F, {0xAA, 0x8B, 0x70, 0x16, 0xB3, 0x15, 0x97, 0x01}};
inline constexpr GUID IID_ICorProfilerMethodEnum = {0xFCCEE788, 0x0088, 0x454B, {0xA8, 0x11, 0xC9, 0x9F, 0x29, 0x8D, 0x19, 0x42}};
inline constexpr GUID IID_ICorProfilerAssemblyReferenceProvider = {0x66A78C24, 0x2EEF, 0x4F65, {0xB4, 0x5F, 0xDD, 0x1D, 0x80, 0x38, 0xBF, 0x3C}};
inline constexpr GUID IID_IMethodMalloc = {0xA0EFB28B, 0x6EE2, 0x4D7B, {0xB9, 0x83, 0xA7, 0x5E, 0xF7, 0xBE, 0xED, 0xB8}};
inline constexpr GUID IID_ICorProfilerFunctionControl = {0xF0963021, 0xE1EA, 0x4732, {0x85, 0x81, 0xE0, 0x1B, 0x0B, 0xD3, 0xC0, 0xC6}};

inline constexpr GUID IID_IMetaDataImport = {0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};
inline constexpr GUID IID_IMetaDataImport2 = {0xFCE5EFA0, 0x8BBA, 0x4F8E, {0xA0, 0x36, 0x8F, 0x20, 0x22, 0xB0, 0x84, 0x66}};
inline constexpr GUID IID_IMetaDataEmit = {0xBA3FEE4C, 0xECB9, 0x4E41, {0x83, 0xB7, 0x18, 0x3F, 0xA4, 0x1C, 0xD8, 0x59}};
inline constexpr GUID IID_IMetaDataEmit2 = {0xF5DD9950, 0xF693, 0x42E6, {0x83, 0x0E, 0x7B, 0x83, 0x3E, 0x81, 0x46, 0xA9}};
inline constexpr GUID IID_IMetaDataAssemblyImport = {0xEE62470B, 0xE94B, 0x424E, {0x9B, 0x7C, 0x2F, 0x00, 0xC9, 0x24, 0x9F, 0x93}};
inline constexpr GUID IID_IMetaDataAssemblyEmit = {0x211EF15B, 0x5317, 0x4438, {0xB1, 0x96, 0xDE, 0xC8, 0x7B, 0x88, 0x76, 0x93}};

// ---------------------------------------------------------------------------
// COM base interfaces.
// ---------------------------------------------------------------------------
// slots 0-2
struct IUnknown {
  virtual HRESULT QueryInterface(REFIID riid, void** ppvObject) = 0;
  virtual ULONG AddRef() = 0;
  virtual ULONG Release() = 0;
};

// slots 3-4
struct IClassFactory : IUnknown {
  virtual HRESULT CreateInstance(IUnknown* pUnkOuter, REFIID riid, void** ppvObject) = 0;
  virtual HRESULT LockServer(BOOL fLock) = 0;
};

struct ICorProfilerFunctionControl;
struct ICorProfilerAssemblyReferenceProvider;
struct IMetaDataImport;
struct IMetaDataEmit;
struct IMetaDataAssemblyImport;
struct IMetaDataAssemblyEmit;

// ---------------------------------------------------------------------------
// Callback interfaces (implemented by the profiler).
// ---------------------------------------------------------------------------
// slots 3-71
struct ICorProfilerCallback : IUnknown {
  virtual HRESULT Initialize(IUnknown* pICorProfilerInfoUnk) = 0;
  virtual HRESULT Shutdown() = 0;
  virtual HRESULT AppDomainCreationStarted(AppDomainID appDomainId) = 0;
  virtual HRESULT AppDomainCreationFinished(AppDomainID appDomainId, HRESULT hrStatus) = 0;
  virtual HRESULT AppDomainShutdownStarted(AppDomainID appDomainId) = 0;
  virtual HRESULT AppDomainShutdownFinished(AppDomainID appDomainId, HRESULT hrStatus) = 0;
  virtual HRESULT AssemblyLoadStarted(AssemblyID assemblyId) = 0;
  virtual HRESULT AssemblyLoadFinished(AssemblyID assemblyId, HRESULT hrStatus) = 0;
  virtual HRESULT AssemblyUnloadStarted(AssemblyID assemblyId) = 0;
  virtual HRESULT AssemblyUnloadFinished(AssemblyID assemblyId, HRESULT hrStatus) = 0;
  virtual HRESULT ModuleLoadStarted(ModuleID moduleId) = 0;
  virtual HRESULT ModuleLoadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
  virtual HRESULT ModuleUnloadStarted(ModuleID moduleId) = 0;
  virtual HRESULT ModuleUnloadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
  virtual HRESULT ModuleAttachedToAssembly(ModuleID moduleId, AssemblyID assemblyId) = 0;
  virtual HRESULT ClassLoadStarted(ClassID classId) = 0;
  virtual HRESULT ClassLoadFinished(ClassID classId, HRESULT hrStatus) = 0;
  virtual HRESULT ClassUnloadStarted(ClassID classId) = 0;
  virtual HRESULT ClassUnloadFinished(ClassID classId, HRESULT hrStatus) = 0;
  virtual HRESULT FunctionUnloadStarted(FunctionID functionId) = 0;
  virtual HRESULT JITCompilationStarted(FunctionID functionId, BOOL fIsSafeToBlock) = 0;
  virtual HRESULT JITCompilationFinished(FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock) = 0;
  virtual HRESULT JITCachedFunctionSearchStarted(FunctionID functionId, BOOL* pbUseCachedFunction) = 0;
  virtual HRESULT JITCachedFunctionSearchFinished(FunctionID functionId, COR_PRF_JIT_CACHE result) = 0;
  virtual HRESULT JITFunctionPitched(FunctionID functionId) = 0;
  virtual HRESULT JITInlining(FunctionID callerId, FunctionID calleeId, BOOL* pfShouldInline) = 0;
  virtual HRESULT ThreadCreated(ThreadID threadId) = 0;
  virtual HRESULT ThreadDestroyed(ThreadID threadId) = 0;
  virtual HRESULT ThreadAssignedToOSThread(ThreadID managedThreadId, DWORD osThreadId) = 0;
  virtual HRESULT RemotingClientInvocationStarted() = 0;
  virtual HRESULT RemotingClientSendingMessage(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT RemotingClientReceivingReply(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT RemotingClientInvocationFinished() = 0;
  virtual HRESULT RemotingServerReceivingMessage(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT RemotingServerInvocationStarted() = 0;
  virtual HRESULT RemotingServerInvocationReturned() = 0;
  virtual HRESULT RemotingServerSendingReply(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT UnmanagedToManagedTransition(FunctionID functionId, COR_PRF_TRANSITION_REASON reason) = 0;
  virtual HRESULT ManagedToUnmanagedTransition(FunctionID functionId, COR_PRF_TRANSITION_REASON reason) = 0;
  virtual HRESULT RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON suspendReason) = 0;
  virtual HRESULT RuntimeSuspendFinished() = 0;
  virtual HRESULT RuntimeSuspendAborted() = 0;
  virtual HRESULT RuntimeResumeStarted() = 0;
  virtual HRESULT RuntimeResumeFinished() = 0;
  virtual HRESULT RuntimeThreadSuspended(ThreadID threadId) = 0;
  virtual HRESULT RuntimeThreadResumed(ThreadID threadId) = 0;
  virtual HRESULT MovedReferences(ULONG cMovedObjectIDRanges, ObjectID oldObjectIDRangeStart[],
                                  ObjectID newObjectIDRangeStart[], ULONG cObjectIDRangeLength[]) = 0;
  virtual HRESULT ObjectAllocated(ObjectID objectId, ClassID classId) = 0;
  virtual HRESULT ObjectsAllocatedByClass(ULONG cClassCount, ClassID classIds[], ULONG cObjects[]) = 0;
  virtual HRESULT ObjectReferences(ObjectID objectId, ClassID classId, ULONG cObjectRefs, ObjectID objectRefIds[]) = 0;
  virtual HRESULT RootReferences(ULONG cRootRefs, ObjectID rootRefIds[]) = 0;
  virtual HRESULT ExceptionThrown(ObjectID thrownObjectId) = 0;
  virtual HRESULT ExceptionSearchFunctionEnter(FunctionID functionId) = 0;
  virtual HRESULT ExceptionSearchFunctionLeave() = 0;
  virtual HRESULT ExceptionSearchFilterEnter(FunctionID functionId) = 0;
  virtual HRESULT ExceptionSearchFilterLeave() = 0;
  virtual HRESULT ExceptionSearchCatcherFound(FunctionID functionId) = 0;
  virtual HRESULT ExceptionOSHandlerEnter(UINT_PTR unused) = 0;
  virtual HRESULT ExceptionOSHandlerLeave(UINT_PTR unused) = 0;
  virtual HRESULT ExceptionUnwindFunctionEnter(FunctionID functionId) = 0;
  virtual HRESULT ExceptionUnwindFunctionLeave() = 0;
  virtual HRESULT ExceptionUnwindFinallyEnter(FunctionID functionId) = 0;
  virtual HRESULT ExceptionUnwindFinallyLeave() = 0;
  virtual HRESULT ExceptionCatcherEnter(FunctionID functionId, ObjectID objectId) = 0;
  virtual HRESULT ExceptionCatcherLeave() = 0;
  virtual HRESULT COMClassicVTableCreated(ClassID wrappedClassId, REFGUID implementedIID, void* pVTable,
                                          ULONG cSlots) = 0;
  virtual HRESULT COMClassicVTableDestroyed(ClassID wrappedClassId, REFGUID implementedIID, void* pVTable) = 0;
  virtual HRESULT ExceptionCLRCatcherFound() = 0;
  virtual HRESULT ExceptionCLRCatcherExecute() = 0;
};

// slots 72-79
struct ICorProfilerCallback2 : ICorProfilerCallback {
  virtual HRESULT ThreadNameChanged(ThreadID threadId, ULONG cchName, WCHAR name[]) = 0;
  virtual HRESULT GarbageCollectionStarted(int cGenerations, BOOL generationCollected[], COR_PRF_GC_REASON reason) = 0;
  virtual HRESULT SurvivingReferences(ULONG cSurvivingObjectIDRanges, ObjectID objectIDRangeStart[],
                                      ULONG cObjectIDRangeLength[]) = 0;
  virtual HRESULT GarbageCollectionFinished() = 0;
  virtual HRESULT FinalizeableObjectQueued(DWORD finalizerFlags, ObjectID objectID) = 0;
  virtual HRESULT RootReferences2(ULONG cRootRefs, ObjectID rootRefIds[], COR_PRF_GC_ROOT_KIND rootKinds[],
                                  COR_PRF_GC_ROOT_FLAGS rootFlags[], UINT_PTR rootIds[]) = 0;
  virtual HRESULT HandleCreated(GCHandleID handleId, ObjectID initialObjectId) = 0;
  virtual HRESULT HandleDestroyed(GCHandleID handleId) = 0;
};

// slots 80-82
struct ICorProfilerCallback3 : ICorProfilerCallback2 {
  virtual HRESULT InitializeForAttach(IUnknown* pCorProfilerInfoUnk, void* pvClientData, UINT cbClientData) = 0;
  virtual HRESULT ProfilerAttachComplete() = 0;
  virtual HRESULT ProfilerDetachSucceeded() = 0;
};

// slots 83-88
struct ICorProfilerCallback4 : ICorProfilerCallback3 {
  virtual HRESULT ReJITCompilationStarted(FunctionID functionId, ReJITID rejitId, BOOL fIsSafeToBlock) = 0;
  virtual HRESULT GetReJITParameters(ModuleID moduleId, mdMethodDef methodId,
                                     ICorProfilerFunctionControl* pFunctionControl) = 0;
  virtual HRESULT ReJITCompilationFinished(FunctionID functionId, ReJITID rejitId, HRESULT hrStatus,
                                           BOOL fIsSafeToBlock) = 0;
  virtual HRESULT ReJITError(ModuleID moduleId, mdMethodDef methodId, FunctionID functionId, HRESULT hrStatus) = 0;
  virtual HRESULT MovedReferences2(ULONG cMovedObjectIDRanges, ObjectID oldObjectIDRangeStart[],
                                   ObjectID newObjectIDRangeStart[], SIZE_T cObjectIDRangeLength[]) = 0;
  virtual HRESULT SurvivingReferences2(ULONG cSurvivingObjectIDRanges, ObjectID objectIDRangeStart[],
                                       SIZE_T cObjectIDRangeLength[]) = 0;
};

// slot 89
struct ICorProfilerCallback5 : ICorProfilerCallback4 {
  virtual HRESULT ConditionalWeakTableElementReferences(ULONG cRootRefs, ObjectID keyRefIds[],
                                                        ObjectID valueRefIds[], GCHandleID rootIds[]) = 0;
};

// slot 90 (never raised by CoreCLR)
struct ICorProfilerCallback6 : ICorProfilerCallback5 {
  virtual HRESULT GetAssemblyReferences(const WCHAR* wszAssemblyPath,
                                        ICorProfilerAssemblyReferenceProvider* pAsmRefProvider) = 0;
};

// slot 91
struct ICorProfilerCallback7 : ICorProfilerCallback6 {
  virtual HRESULT ModuleInMemorySymbolsUpdated(ModuleID moduleId) = 0;
};

// slots 92-93
struct ICorProfilerCallback8 : ICorProfilerCallback7 {
  virtual HRESULT DynamicMethodJITCompilationStarted(FunctionID functionId, BOOL fIsSafeToBlock, LPCBYTE pILHeader,
                                                     ULONG cbILHeader) = 0;
  virtual HRESULT DynamicMethodJITCompilationFinished(FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock) = 0;
};

// slot 94
struct ICorProfilerCallback9 : ICorProfilerCallback8 {
  virtual HRESULT DynamicMethodUnloaded(FunctionID functionId) = 0;
};

// slots 95-96
struct ICorProfilerCallback10 : ICorProfilerCallback9 {
  virtual HRESULT EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion,
                                          ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData,
                                          LPCBYTE eventData, LPCGUID pActivityId, LPCGUID pRelatedActivityId,
                                          ThreadID eventThread, ULONG numStackFrames, UINT_PTR stackFrames[]) = 0;
  virtual HRESULT EventPipeProviderCreated(EVENTPIPE_PROVIDER provider) = 0;
};

// slot 97
struct ICorProfilerCallback11 : ICorProfilerCallback10 {
  virtual HRESULT LoadAsNotificationOnly(BOOL* pbNotificationOnly) = 0;
};

// ---------------------------------------------------------------------------
// Small runtime-implemented interfaces.
// ---------------------------------------------------------------------------
// slot 3
struct IMethodMalloc : IUnknown {
  virtual PVOID Alloc(ULONG cb) = 0;
};

// slots 3-5
struct ICorProfilerFunctionControl : IUnknown {
  virtual HRESULT SetCodegenFlags(DWORD flags) = 0;
  virtual HRESULT SetILFunctionBody(ULONG cbNewILMethodHeader, LPCBYTE pbNewILMethodHeader) = 0;
  virtual HRESULT SetILInstrumentedCodeMap(ULONG cILMapEntries, COR_IL_MAP rgILMapEntries[]) = 0;
};

// slot 3
struct ICorProfilerAssemblyReferenceProvider : IUnknown {
  virtual HRESULT AddAssemblyReference(const COR_PRF_ASSEMBLY_REFERENCE_INFO* pAssemblyRefInfo) = 0;
};

// Enumerators: slots 3-7 each (Skip, Reset, Clone, GetCount, Next).
struct ICorProfilerObjectEnum : IUnknown {
  virtual HRESULT Skip(ULONG celt) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerObjectEnum** ppEnum) = 0;
  virtual HRESULT GetCount(ULONG* pcelt) = 0;
  virtual HRESULT Next(ULONG celt, ObjectID objects[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerFunctionEnum : IUnknown {
  virtual HRESULT Skip(ULONG celt) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT GetCount(ULONG* pcelt) = 0;
  virtual HRESULT Next(ULONG celt, COR_PRF_FUNCTION ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerModuleEnum : IUnknown {
  virtual HRESULT Skip(ULONG celt) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerModuleEnum** ppEnum) = 0;
  virtual HRESULT GetCount(ULONG* pcelt) = 0;
  virtual HRESULT Next(ULONG celt, ModuleID ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerThreadEnum : IUnknown {
  virtual HRESULT Skip(ULONG celt) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerThreadEnum** ppEnum) = 0;
  virtual HRESULT GetCount(ULONG* pcelt) = 0;
  virtual HRESULT Next(ULONG celt, ThreadID ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerMethodEnum : IUnknown {
  virtual HRESULT Skip(ULONG celt) = 0;
  virtual HRESULT Reset() = 0;
  virtual HRESULT Clone(ICorProfilerMethodEnum** ppEnum) = 0;
  virtual HRESULT GetCount(ULONG* pcelt) = 0;
  virtual HRESULT Next(ULONG celt, COR_PRF_METHOD elements[], ULONG* pceltFetched) = 0;
};

// ---------------------------------------------------------------------------
// Info interfaces (implemented by the runtime).
// ---------------------------------------------------------------------------
// slots 3-35
struct ICorProfilerInfo : IUnknown {
  virtual HRESULT GetClassFromObject(ObjectID objectId, ClassID* pClassId) = 0;
  virtual HRESULT GetClassFromToken(ModuleID moduleId, mdTypeDef typeDef, ClassID* pClassId) = 0;
  virtual HRESULT GetCodeInfo(FunctionID functionId, LPCBYTE* pStart, ULONG* pcSize) = 0;
  virtual HRESULT GetEventMask(DWORD* pdwEvents) = 0;
  virtual HRESULT GetFunctionFromIP(LPCBYTE ip, FunctionID* pFunctionId) = 0;
  virtual HRESULT GetFunctionFromToken(ModuleID moduleId, mdToken token, FunctionID* pFunctionId) = 0;
  virtual HRESULT GetHandleFromThread(ThreadID threadId, HANDLE* phThread) = 0;
  virtual HRESULT GetObjectSize(ObjectID objectId, ULONG* pcSize) = 0;
  virtual HRESULT IsArrayClass(ClassID classId, CorElementType* pBaseElemType, ClassID* pBaseClassId,
                               ULONG* pcRank) = 0;
  virtual HRESULT GetThreadInfo(ThreadID threadId, DWORD* pdwWin32ThreadId) = 0;
  virtual HRESULT GetCurrentThreadID(ThreadID* pThreadId) = 0;
  virtual HRESULT GetClassIDInfo(ClassID classId, ModuleID* pModuleId, mdTypeDef* pTypeDefToken) = 0;
  virtual HRESULT GetFunctionInfo(FunctionID functionId, ClassID* pClassId, ModuleID* pModuleId, mdToken* pToken) = 0;
  virtual HRESULT SetEventMask(DWORD dwEvents) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks(FunctionEnter* pFuncEnter, FunctionLeave* pFuncLeave,
                                             FunctionTailcall* pFuncTailcall) = 0;
  virtual HRESULT SetFunctionIDMapper(FunctionIDMapper* pFunc) = 0;
  virtual HRESULT GetTokenAndMetaDataFromFunction(FunctionID functionId, REFIID riid, IUnknown** ppImport,
                                                  mdToken* pToken) = 0;
  virtual HRESULT GetModuleInfo(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress, ULONG cchName, ULONG* pcchName,
                                WCHAR szName[], AssemblyID* pAssemblyId) = 0;
  virtual HRESULT GetModuleMetaData(ModuleID moduleId, DWORD dwOpenFlags, REFIID riid, IUnknown** ppOut) = 0;
  virtual HRESULT GetILFunctionBody(ModuleID moduleId, mdMethodDef methodId, LPCBYTE* ppMethodHeader,
                                    ULONG* pcbMethodSize) = 0;
  virtual HRESULT GetILFunctionBodyAllocator(ModuleID moduleId, IMethodMalloc** ppMalloc) = 0;
  virtual HRESULT SetILFunctionBody(ModuleID moduleId, mdMethodDef methodid, LPCBYTE pbNewILMethodHeader) = 0;
  virtual HRESULT GetAppDomainInfo(AppDomainID appDomainId, ULONG cchName, ULONG* pcchName, WCHAR szName[],
                                   ProcessID* pProcessId) = 0;
  virtual HRESULT GetAssemblyInfo(AssemblyID assemblyId, ULONG cchName, ULONG* pcchName, WCHAR szName[],
                                  AppDomainID* pAppDomainId, ModuleID* pModuleId) = 0;
  virtual HRESULT SetFunctionReJIT(FunctionID functionId) = 0;
  virtual HRESULT ForceGC() = 0;
  virtual HRESULT SetILInstrumentedCodeMap(FunctionID functionId, BOOL fStartJit, ULONG cILMapEntries,
                                           COR_IL_MAP rgILMapEntries[]) = 0;
  virtual HRESULT GetInprocInspectionInterface(IUnknown** ppicd) = 0;
  virtual HRESULT GetInprocInspectionIThisThread(IUnknown** ppicd) = 0;
  virtual HRESULT GetThreadContext(ThreadID threadId, ContextID* pContextId) = 0;
  virtual HRESULT BeginInprocDebugging(BOOL fThisThreadOnly, DWORD* pdwProfilerContext) = 0;
  virtual HRESULT EndInprocDebugging(DWORD dwProfilerContext) = 0;
  virtual HRESULT GetILToNativeMapping(FunctionID functionId, ULONG32 cMap, ULONG32* pcMap,
                                       COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
};

// slots 36-56
struct ICorProfilerInfo2 : ICorProfilerInfo {
  virtual HRESULT DoStackSnapshot(ThreadID thread, StackSnapshotCallback* callback, ULONG32 infoFlags,
                                  void* clientData, BYTE context[], ULONG32 contextSize) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks2(FunctionEnter2* pFuncEnter, FunctionLeave2* pFuncLeave,
                                              FunctionTailcall2* pFuncTailcall) = 0;
  virtual HRESULT GetFunctionInfo2(FunctionID funcId, COR_PRF_FRAME_INFO frameInfo, ClassID* pClassId,
                                   ModuleID* pModuleId, mdToken* pToken, ULONG32 cTypeArgs, ULONG32* pcTypeArgs,
                                   ClassID typeArgs[]) = 0;
  virtual HRESULT GetStringLayout(ULONG* pBufferLengthOffset, ULONG* pStringLengthOffset, ULONG* pBufferOffset) = 0;
  virtual HRESULT GetClassLayout(ClassID classID, COR_FIELD_OFFSET rFieldOffset[], ULONG cFieldOffset,
                                 ULONG* pcFieldOffset, ULONG* pulClassSize) = 0;
  virtual HRESULT GetClassIDInfo2(ClassID classId, ModuleID* pModuleId, mdTypeDef* pTypeDefToken,
                                  ClassID* pParentClassId, ULONG32 cNumTypeArgs, ULONG32* pcNumTypeArgs,
                                  ClassID typeArgs[]) = 0;
  virtual HRESULT GetCodeInfo2(FunctionID functionID, ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                               COR_PRF_CODE_INFO codeInfos[]) = 0;
  virtual HRESULT GetClassFromTokenAndTypeArgs(ModuleID moduleID, mdTypeDef typeDef, ULONG32 cTypeArgs,
                                               ClassID typeArgs[], ClassID* pClassID) = 0;
  virtual HRESULT GetFunctionFromTokenAndTypeArgs(ModuleID moduleID, mdMethodDef funcDef, ClassID classId,
                                                  ULONG32 cTypeArgs, ClassID typeArgs[], FunctionID* pFunctionID) = 0;
  virtual HRESULT EnumModuleFrozenObjects(ModuleID moduleID, ICorProfilerObjectEnum** ppEnum) = 0;
  virtual HRESULT GetArrayObjectInfo(ObjectID objectId, ULONG32 cDimensions, ULONG32 pDimensionSizes[],
                                     int pDimensionLowerBounds[], BYTE** ppData) = 0;
  virtual HRESULT GetBoxClassLayout(ClassID classId, ULONG32* pBufferOffset) = 0;
  virtual HRESULT GetThreadAppDomain(ThreadID threadId, AppDomainID* pAppDomainId) = 0;
  virtual HRESULT GetRVAStaticAddress(ClassID classId, mdFieldDef fieldToken, void** ppAddress) = 0;
  virtual HRESULT GetAppDomainStaticAddress(ClassID classId, mdFieldDef fieldToken, AppDomainID appDomainId,
                                            void** ppAddress) = 0;
  virtual HRESULT GetThreadStaticAddress(ClassID classId, mdFieldDef fieldToken, ThreadID threadId,
                                         void** ppAddress) = 0;
  virtual HRESULT GetContextStaticAddress(ClassID classId, mdFieldDef fieldToken, ContextID contextId,
                                          void** ppAddress) = 0;
  virtual HRESULT GetStaticFieldInfo(ClassID classId, mdFieldDef fieldToken, COR_PRF_STATIC_TYPE* pFieldInfo) = 0;
  virtual HRESULT GetGenerationBounds(ULONG cObjectRanges, ULONG* pcObjectRanges,
                                      COR_PRF_GC_GENERATION_RANGE ranges[]) = 0;
  virtual HRESULT GetObjectGeneration(ObjectID objectId, COR_PRF_GC_GENERATION_RANGE* range) = 0;
  virtual HRESULT GetNotifiedExceptionClauseInfo(COR_PRF_EX_CLAUSE_INFO* pinfo) = 0;
};

// slots 57-70
struct ICorProfilerInfo3 : ICorProfilerInfo2 {
  virtual HRESULT EnumJITedFunctions(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT RequestProfilerDetach(DWORD dwExpectedCompletionMilliseconds) = 0;
  virtual HRESULT SetFunctionIDMapper2(FunctionIDMapper2* pFunc, void* clientData) = 0;
  virtual HRESULT GetStringLayout2(ULONG* pStringLengthOffset, ULONG* pBufferOffset) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks3(FunctionEnter3* pFuncEnter3, FunctionLeave3* pFuncLeave3,
                                              FunctionTailcall3* pFuncTailcall3) = 0;
  virtual HRESULT SetEnterLeaveFunctionHooks3WithInfo(FunctionEnter3WithInfo* pFuncEnter3WithInfo,
                                                      FunctionLeave3WithInfo* pFuncLeave3WithInfo,
                                                      FunctionTailcall3WithInfo* pFuncTailcall3WithInfo) = 0;
  virtual HRESULT GetFunctionEnter3Info(FunctionID functionId, COR_PRF_ELT_INFO eltInfo,
                                        COR_PRF_FRAME_INFO* pFrameInfo, ULONG* pcbArgumentInfo,
                                        COR_PRF_FUNCTION_ARGUMENT_INFO* pArgumentInfo) = 0;
  virtual HRESULT GetFunctionLeave3Info(FunctionID functionId, COR_PRF_ELT_INFO eltInfo,
                                        COR_PRF_FRAME_INFO* pFrameInfo,
                                        COR_PRF_FUNCTION_ARGUMENT_RANGE* pRetvalRange) = 0;
  virtual HRESULT GetFunctionTailcall3Info(FunctionID functionId, COR_PRF_ELT_INFO eltInfo,
                                           COR_PRF_FRAME_INFO* pFrameInfo) = 0;
  virtual HRESULT EnumModules(ICorProfilerModuleEnum** ppEnum) = 0;
  virtual HRESULT GetRuntimeInformation(USHORT* pClrInstanceId, COR_PRF_RUNTIME_TYPE* pRuntimeType,
                                        USHORT* pMajorVersion, USHORT* pMinorVersion, USHORT* pBuildNumber,
                                        USHORT* pQFEVersion, ULONG cchVersionString, ULONG* pcchVersionString,
                                        WCHAR szVersionString[]) = 0;
  virtual HRESULT GetThreadStaticAddress2(ClassID classId, mdFieldDef fieldToken, AppDomainID appDomainId,
                                          ThreadID threadId, void** ppAddress) = 0;
  virtual HRESULT GetAppDomainsContainingModule(ModuleID moduleId, ULONG32 cAppDomainIds, ULONG32* pcAppDomainIds,
                                                AppDomainID appDomainIds[]) = 0;
  virtual HRESULT GetModuleInfo2(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress, ULONG cchName, ULONG* pcchName,
                                 WCHAR szName[], AssemblyID* pAssemblyId, DWORD* pdwModuleFlags) = 0;
};

// slots 71-80
struct ICorProfilerInfo4 : ICorProfilerInfo3 {
  virtual HRESULT EnumThreads(ICorProfilerThreadEnum** ppEnum) = 0;
  virtual HRESULT InitializeCurrentThread() = 0;
  virtual HRESULT RequestReJIT(ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[]) = 0;
  virtual HRESULT RequestRevert(ULONG cFunctions, ModuleID moduleIds[], mdMethodDef methodIds[],
                                HRESULT status[]) = 0;
  virtual HRESULT GetCodeInfo3(FunctionID functionID, ReJITID reJitId, ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                               COR_PRF_CODE_INFO codeInfos[]) = 0;
  virtual HRESULT GetFunctionFromIP2(LPCBYTE ip, FunctionID* pFunctionId, ReJITID* pReJitId) = 0;
  virtual HRESULT GetReJITIDs(FunctionID functionId, ULONG cReJitIds, ULONG* pcReJitIds, ReJITID reJitIds[]) = 0;
  virtual HRESULT GetILToNativeMapping2(FunctionID functionId, ReJITID reJitId, ULONG32 cMap, ULONG32* pcMap,
                                        COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
  virtual HRESULT EnumJITedFunctions2(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT GetObjectSize2(ObjectID objectId, SIZE_T* pcSize) = 0;
};

// slots 81-82
struct ICorProfilerInfo5 : ICorProfilerInfo4 {
  virtual HRESULT GetEventMask2(DWORD* pdwEventsLow, DWORD* pdwEventsHigh) = 0;
  virtual HRESULT SetEventMask2(DWORD dwEventsLow, DWORD dwEventsHigh) = 0;
};

// slot 83
struct ICorProfilerInfo6 : ICorProfilerInfo5 {
  virtual HRESULT EnumNgenModuleMethodsInliningThisMethod(ModuleID inlinersModuleId, ModuleID inlineeModuleId,
                                                          mdMethodDef inlineeMethodId, BOOL* incompleteData,
                                                          ICorProfilerMethodEnum** ppEnum) = 0;
};

// slots 84-86
struct ICorProfilerInfo7 : ICorProfilerInfo6 {
  virtual HRESULT ApplyMetaData(ModuleID moduleId) = 0;
  virtual HRESULT GetInMemorySymbolsLength(ModuleID moduleId, DWORD* pCountSymbolBytes) = 0;
  virtual HRESULT ReadInMemorySymbols(ModuleID moduleId, DWORD symbolsReadOffset, BYTE* pSymbolBytes,
                                      DWORD countSymbolBytes, DWORD* pCountSymbolBytesRead) = 0;
};

// slots 87-89
struct ICorProfilerInfo8 : ICorProfilerInfo7 {
  virtual HRESULT IsFunctionDynamic(FunctionID functionId, BOOL* isDynamic) = 0;
  virtual HRESULT GetFunctionFromIP3(LPCBYTE ip, FunctionID* functionId, ReJITID* pReJitId) = 0;
  virtual HRESULT GetDynamicFunctionInfo(FunctionID functionId, ModuleID* moduleId, PCCOR_SIGNATURE* ppvSig,
                                         ULONG* pbSig, ULONG cchName, ULONG* pcchName, WCHAR wszName[]) = 0;
};

// slots 90-92
struct ICorProfilerInfo9 : ICorProfilerInfo8 {
  virtual HRESULT GetNativeCodeStartAddresses(FunctionID functionID, ReJITID reJitId, ULONG32 cCodeStartAddresses,
                                              ULONG32* pcCodeStartAddresses, UINT_PTR codeStartAddresses[]) = 0;
  virtual HRESULT GetILToNativeMapping3(UINT_PTR pNativeCodeStartAddress, ULONG32 cMap, ULONG32* pcMap,
                                        COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
  virtual HRESULT GetCodeInfo4(UINT_PTR pNativeCodeStartAddress, ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                               COR_PRF_CODE_INFO codeInfos[]) = 0;
};

// slots 93-98
struct ICorProfilerInfo10 : ICorProfilerInfo9 {
  virtual HRESULT EnumerateObjectReferences(ObjectID objectId, ObjectReferenceCallback callback,
                                            void* clientData) = 0;
  virtual HRESULT IsFrozenObject(ObjectID objectId, BOOL* pbFrozen) = 0;
  virtual HRESULT GetLOHObjectSizeThreshold(DWORD* pThreshold) = 0;
  virtual HRESULT RequestReJITWithInliners(DWORD dwRejitFlags, ULONG cFunctions, ModuleID moduleIds[],
                                           mdMethodDef methodIds[]) = 0;
  virtual HRESULT SuspendRuntime() = 0;
  virtual HRESULT ResumeRuntime() = 0;
};

// slots 99-100
struct ICorProfilerInfo11 : ICorProfilerInfo10 {
  virtual HRESULT GetEnvironmentVariable(const WCHAR* szName, ULONG cchValue, ULONG* pcchValue,
                                         WCHAR szValue[]) = 0;
  virtual HRESULT SetEnvironmentVariable(const WCHAR* szName, const WCHAR* szValue) = 0;
};

// ---------------------------------------------------------------------------
// Metadata interfaces (cor.h).  Every method has its real signature.
// ---------------------------------------------------------------------------
// slots 3-51 (49 methods)
struct IMetaDataEmit : IUnknown {
  virtual HRESULT SetModuleProps(LPCWSTR szName) = 0;
  virtual HRESULT Save(LPCWSTR szFile, DWORD dwSaveFlags) = 0;
  virtual HRESULT SaveToStream(IStream* pIStream, DWORD dwSaveFlags) = 0;
  virtual HRESULT GetSaveSize(CorSaveSize fSave, DWORD* pdwSaveSize) = 0;
  virtual HRESULT DefineTypeDef(LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends, mdToken rtkImplements[],
                                mdTypeDef* ptd) = 0;
  virtual HRESULT DefineNestedType(LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends,
                                   mdToken rtkImplements[], mdTypeDef tdEncloser, mdTypeDef* ptd) = 0;
  virtual HRESULT SetHandler(IUnknown* pUnk) = 0;
  virtual HRESULT DefineMethod(mdTypeDef td, LPCWSTR szName, DWORD dwMethodFlags, PCCOR_SIGNATURE pvSigBlob,
                               ULONG cbSigBlob, ULONG ulCodeRVA, DWORD dwImplFlags, mdMethodDef* pmd) = 0;
  virtual HRESULT DefineMethodImpl(mdTypeDef td, mdToken tkBody, mdToken tkDecl) = 0;
  virtual HRESULT DefineTypeRefByName(mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef* ptr) = 0;
  virtual HRESULT DefineImportType(IMetaDataAssemblyImport* pAssemImport, const void* pbHashValue,
                                   ULONG cbHashValue, IMetaDataImport* pImport, mdTypeDef tdImport,
                                   IMetaDataAssemblyEmit* pAssemEmit, mdTypeRef* ptr) = 0;
  virtual HRESULT DefineMemberRef(mdToken tkImport, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                  mdMemberRef* pmr) = 0;
  virtual HRESULT DefineImportMember(IMetaDataAssemblyImport* pAssemImport, const void* pbHashValue,
                                     ULONG cbHashValue, IMetaDataImport* pImport, mdToken mbMember,
                                     IMetaDataAssemblyEmit* pAssemEmit, mdToken tkParent, mdMemberRef* pmr) = 0;
  virtual HRESULT DefineEvent(mdTypeDef td, LPCWSTR szEvent, DWORD dwEventFlags, mdToken tkEventType,
                              mdMethodDef mdAddOn, mdMethodDef mdRemoveOn, mdMethodDef mdFire,
                              mdMethodDef rmdOtherMethods[], mdEvent* pmdEvent) = 0;
  virtual HRESULT SetClassLayout(mdTypeDef td, DWORD dwPackSize, COR_FIELD_OFFSET rFieldOffsets[],
                                 ULONG ulClassSize) = 0;
  virtual HRESULT DeleteClassLayout(mdTypeDef td) = 0;
  virtual HRESULT SetFieldMarshal(mdToken tk, PCCOR_SIGNATURE pvNativeType, ULONG cbNativeType) = 0;
  virtual HRESULT DeleteFieldMarshal(mdToken tk) = 0;
  virtual HRESULT DefinePermissionSet(mdToken tk, DWORD dwAction, const void* pvPermission, ULONG cbPermission,
                                      mdPermission* ppm) = 0;
  virtual HRESULT SetRVA(mdMethodDef md, ULONG ulRVA) = 0;
  virtual HRESULT GetTokenFromSig(PCCOR_SIGNATURE pvSig, ULONG cbSig, mdSignature* pmsig) = 0;
  virtual HRESULT DefineModuleRef(LPCWSTR szName, mdModuleRef* pmur) = 0;
  virtual HRESULT SetParent(mdMemberRef mr, mdToken tk) = 0;
  virtual HRESULT GetTokenFromTypeSpec(PCCOR_SIGNATURE pvSig, ULONG cbSig, mdTypeSpec* ptypespec) = 0;
  virtual HRESULT SaveToMemory(void* pbData, ULONG cbData) = 0;
  virtual HRESULT DefineUserString(LPCWSTR szString, ULONG cchString, mdString* pstk) = 0;
  virtual HRESULT DeleteToken(mdToken tkObj) = 0;
  virtual HRESULT SetMethodProps(mdMethodDef md, DWORD dwMethodFlags, ULONG ulCodeRVA, DWORD dwImplFlags) = 0;
  virtual HRESULT SetTypeDefProps(mdTypeDef td, DWORD dwTypeDefFlags, mdToken tkExtends,
                                  mdToken rtkImplements[]) = 0;
  virtual HRESULT SetEventProps(mdEvent ev, DWORD dwEventFlags, mdToken tkEventType, mdMethodDef mdAddOn,
                                mdMethodDef mdRemoveOn, mdMethodDef mdFire, mdMethodDef rmdOtherMethods[]) = 0;
  virtual HRESULT SetPermissionSetProps(mdToken tk, DWORD dwAction, const void* pvPermission, ULONG cbPermission,
                                        mdPermission* ppm) = 0;
  virtual HRESULT DefinePinvokeMap(mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName,
                                   mdModuleRef mrImportDLL) = 0;
  virtual HRESULT SetPinvokeMap(mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName,
                                mdModuleRef mrImportDLL) = 0;
  virtual HRESULT DeletePinvokeMap(mdToken tk) = 0;
  virtual HRESULT DefineCustomAttribute(mdToken tkOwner, mdToken tkCtor, const void* pCustomAttribute,
                                        ULONG cbCustomAttribute, mdCustomAttribute* pcv) = 0;
  virtual HRESULT SetCustomAttributeValue(mdCustomAttribute pcv, const void* pCustomAttribute,
                                          ULONG cbCustomAttribute) = 0;
  virtual HRESULT DefineField(mdTypeDef td, LPCWSTR szName, DWORD dwFieldFlags, PCCOR_SIGNATURE pvSigBlob,
                              ULONG cbSigBlob, DWORD dwCPlusTypeFlag, const void* pValue, ULONG cchValue,
                              mdFieldDef* pmd) = 0;
  virtual HRESULT DefineProperty(mdTypeDef td, LPCWSTR szProperty, DWORD dwPropFlags, PCCOR_SIGNATURE pvSig,
                                 ULONG cbSig, DWORD dwCPlusTypeFlag, const void* pValue, ULONG cchValue,
                                 mdMethodDef mdSetter, mdMethodDef mdGetter, mdMethodDef rmdOtherMethods[],
                                 mdProperty* pmdProp) = 0;
  virtual HRESULT DefineParam(mdMethodDef md, ULONG ulParamSeq, LPCWSTR szName, DWORD dwParamFlags,
                              DWORD dwCPlusTypeFlag, const void* pValue, ULONG cchValue, mdParamDef* ppd) = 0;
  virtual HRESULT SetFieldProps(mdFieldDef fd, DWORD dwFieldFlags, DWORD dwCPlusTypeFlag, const void* pValue,
                                ULONG cchValue) = 0;
  virtual HRESULT SetPropertyProps(mdProperty pr, DWORD dwPropFlags, DWORD dwCPlusTypeFlag, const void* pValue,
                                   ULONG cchValue, mdMethodDef mdSetter, mdMethodDef mdGetter,
                                   mdMethodDef rmdOtherMethods[]) = 0;
  virtual HRESULT SetParamProps(mdParamDef pd, LPCWSTR szName, DWORD dwParamFlags, DWORD dwCPlusTypeFlag,
                                const void* pValue, ULONG cchValue) = 0;
  virtual HRESULT DefineSecurityAttributeSet(mdToken tkObj, COR_SECATTR* rSecAttrs, ULONG cSecAttrs,
                                             ULONG* pulErrorAttr) = 0;
  virtual HRESULT ApplyEditAndContinue(IUnknown* pImport) = 0;
  virtual HRESULT TranslateSigWithScope(IMetaDataAssemblyImport* pAssemImport, const void* pbHashValue,
                                        ULONG cbHashValue, IMetaDataImport* pImport, PCCOR_SIGNATURE pbSigBlob,
                                        ULONG cbSigBlob, IMetaDataAssemblyEmit* pAssemEmit, IMetaDataEmit* pEmit,
                                        PCOR_SIGNATURE pvTranslatedSig, ULONG cbTranslatedSigMax,
                                        ULONG* pcbTranslatedSig) = 0;
  virtual HRESULT SetMethodImplFlags(mdMethodDef md, DWORD dwImplFlags) = 0;
  virtual HRESULT SetFieldRVA(mdFieldDef fd, ULONG ulRVA) = 0;
  virtual HRESULT Merge(IMetaDataImport* pImport, IMapToken* pHostMapToken, IUnknown* pHandler) = 0;
  virtual HRESULT MergeEnd() = 0;
};

// slots 52-59
struct IMetaDataEmit2 : IMetaDataEmit {
  virtual HRESULT DefineMethodSpec(mdToken tkParent, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                   mdMethodSpec* pmi) = 0;
  virtual HRESULT GetDeltaSaveSize(CorSaveSize fSave, DWORD* pdwSaveSize) = 0;
  virtual HRESULT SaveDelta(LPCWSTR szFile, DWORD dwSaveFlags) = 0;
  virtual HRESULT SaveDeltaToStream(IStream* pIStream, DWORD dwSaveFlags) = 0;
  virtual HRESULT SaveDeltaToMemory(void* pbData, ULONG cbData) = 0;
  virtual HRESULT DefineGenericParam(mdToken tk, ULONG ulParamSeq, DWORD dwParamFlags, LPCWSTR szname,
                                     DWORD reserved, mdToken rtkConstraints[], mdGenericParam* pgp) = 0;
  virtual HRESULT SetGenericParamProps(mdGenericParam gp, DWORD dwParamFlags, LPCWSTR szName, DWORD reserved,
                                       mdToken rtkConstraints[]) = 0;
  virtual HRESULT ResetENCLog() = 0;
};

// slots 3-64 (62 methods).  Note: CloseEnum returns void.
struct IMetaDataImport : IUnknown {
  virtual void CloseEnum(HCORENUM hEnum) = 0;
  virtual HRESULT CountEnum(HCORENUM hEnum, ULONG* pulCount) = 0;
  virtual HRESULT ResetEnum(HCORENUM hEnum, ULONG ulPos) = 0;
  virtual HRESULT EnumTypeDefs(HCORENUM* phEnum, mdTypeDef rTypeDefs[], ULONG cMax, ULONG* pcTypeDefs) = 0;
  virtual HRESULT EnumInterfaceImpls(HCORENUM* phEnum, mdTypeDef td, mdInterfaceImpl rImpls[], ULONG cMax,
                                     ULONG* pcImpls) = 0;
  virtual HRESULT EnumTypeRefs(HCORENUM* phEnum, mdTypeRef rTypeRefs[], ULONG cMax, ULONG* pcTypeRefs) = 0;
  virtual HRESULT FindTypeDefByName(LPCWSTR szTypeDef, mdToken tkEnclosingClass, mdTypeDef* ptd) = 0;
  virtual HRESULT GetScopeProps(LPWSTR szName, ULONG cchName, ULONG* pchName, GUID* pmvid) = 0;
  virtual HRESULT GetModuleFromScope(mdModule* pmd) = 0;
  virtual HRESULT GetTypeDefProps(mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef, ULONG* pchTypeDef,
                                  DWORD* pdwTypeDefFlags, mdToken* ptkExtends) = 0;
  virtual HRESULT GetInterfaceImplProps(mdInterfaceImpl iiImpl, mdTypeDef* pClass, mdToken* ptkIface) = 0;
  virtual HRESULT GetTypeRefProps(mdTypeRef tr, mdToken* ptkResolutionScope, LPWSTR szName, ULONG cchName,
                                  ULONG* pchName) = 0;
  virtual HRESULT ResolveTypeRef(mdTypeRef tr, REFIID riid, IUnknown** ppIScope, mdTypeDef* ptd) = 0;
  virtual HRESULT EnumMembers(HCORENUM* phEnum, mdTypeDef cl, mdToken rMembers[], ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumMembersWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName, mdToken rMembers[],
                                      ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumMethods(HCORENUM* phEnum, mdTypeDef cl, mdMethodDef rMethods[], ULONG cMax,
                              ULONG* pcTokens) = 0;
  virtual HRESULT EnumMethodsWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName, mdMethodDef rMethods[],
                                      ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumFields(HCORENUM* phEnum, mdTypeDef cl, mdFieldDef rFields[], ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumFieldsWithName(HCORENUM* phEnum, mdTypeDef cl, LPCWSTR szName, mdFieldDef rFields[],
                                     ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumParams(HCORENUM* phEnum, mdMethodDef mb, mdParamDef rParams[], ULONG cMax,
                             ULONG* pcTokens) = 0;
  virtual HRESULT EnumMemberRefs(HCORENUM* phEnum, mdToken tkParent, mdMemberRef rMemberRefs[], ULONG cMax,
                                 ULONG* pcTokens) = 0;
  virtual HRESULT EnumMethodImpls(HCORENUM* phEnum, mdTypeDef td, mdToken rMethodBody[], mdToken rMethodDecl[],
                                  ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumPermissionSets(HCORENUM* phEnum, mdToken tk, DWORD dwActions, mdPermission rPermission[],
                                     ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT FindMember(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                             mdToken* pmb) = 0;
  virtual HRESULT FindMethod(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                             mdMethodDef* pmb) = 0;
  virtual HRESULT FindField(mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                            mdFieldDef* pmb) = 0;
  virtual HRESULT FindMemberRef(mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                mdMemberRef* pmr) = 0;
  virtual HRESULT GetMethodProps(mdMethodDef mb, mdTypeDef* pClass, LPWSTR szMethod, ULONG cchMethod,
                                 ULONG* pchMethod, DWORD* pdwAttr, PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob,
                                 ULONG* pulCodeRVA, DWORD* pdwImplFlags) = 0;
  virtual HRESULT GetMemberRefProps(mdMemberRef mr, mdToken* ptk, LPWSTR szMember, ULONG cchMember,
                                    ULONG* pchMember, PCCOR_SIGNATURE* ppvSigBlob, ULONG* pbSig) = 0;
  virtual HRESULT EnumProperties(HCORENUM* phEnum, mdTypeDef td, mdProperty rProperties[], ULONG cMax,
                                 ULONG* pcProperties) = 0;
  virtual HRESULT EnumEvents(HCORENUM* phEnum, mdTypeDef td, mdEvent rEvents[], ULONG cMax, ULONG* pcEvents) = 0;
  // szEvent is an output buffer (cor.h spells it LPCWSTR; same ABI).
  virtual HRESULT GetEventProps(mdEvent ev, mdTypeDef* pClass, LPWSTR szEvent, ULONG cchEvent, ULONG* pchEvent,
                                DWORD* pdwEventFlags, mdToken* ptkEventType, mdMethodDef* pmdAddOn,
                                mdMethodDef* pmdRemoveOn, mdMethodDef* pmdFire, mdMethodDef rmdOtherMethod[],
                                ULONG cMax, ULONG* pcOtherMethod) = 0;
  virtual HRESULT EnumMethodSemantics(HCORENUM* phEnum, mdMethodDef mb, mdToken rEventProp[], ULONG cMax,
                                      ULONG* pcEventProp) = 0;
  virtual HRESULT GetMethodSemantics(mdMethodDef mb, mdToken tkEventProp, DWORD* pdwSemanticsFlags) = 0;
  virtual HRESULT GetClassLayout(mdTypeDef td, DWORD* pdwPackSize, COR_FIELD_OFFSET rFieldOffset[], ULONG cMax,
                                 ULONG* pcFieldOffset, ULONG* pulClassSize) = 0;
  virtual HRESULT GetFieldMarshal(mdToken tk, PCCOR_SIGNATURE* ppvNativeType, ULONG* pcbNativeType) = 0;
  virtual HRESULT GetRVA(mdToken tk, ULONG* pulCodeRVA, DWORD* pdwImplFlags) = 0;
  virtual HRESULT GetPermissionSetProps(mdPermission pm, DWORD* pdwAction, const void** ppvPermission,
                                        ULONG* pcbPermission) = 0;
  virtual HRESULT GetSigFromToken(mdSignature mdSig, PCCOR_SIGNATURE* ppvSig, ULONG* pcbSig) = 0;
  virtual HRESULT GetModuleRefProps(mdModuleRef mur, LPWSTR szName, ULONG cchName, ULONG* pchName) = 0;
  virtual HRESULT EnumModuleRefs(HCORENUM* phEnum, mdModuleRef rModuleRefs[], ULONG cmax, ULONG* pcModuleRefs) = 0;
  virtual HRESULT GetTypeSpecFromToken(mdTypeSpec typespec, PCCOR_SIGNATURE* ppvSig, ULONG* pcbSig) = 0;
  virtual HRESULT GetNameFromToken(mdToken tk, MDUTF8CSTR* pszUtf8NamePtr) = 0;
  virtual HRESULT EnumUnresolvedMethods(HCORENUM* phEnum, mdToken rMethods[], ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT GetUserString(mdString stk, LPWSTR szString, ULONG cchString, ULONG* pchString) = 0;
  virtual HRESULT GetPinvokeMap(mdToken tk, DWORD* pdwMappingFlags, LPWSTR szImportName, ULONG cchImportName,
                                ULONG* pchImportName, mdModuleRef* pmrImportDLL) = 0;
  virtual HRESULT EnumSignatures(HCORENUM* phEnum, mdSignature rSignatures[], ULONG cmax, ULONG* pcSignatures) = 0;
  virtual HRESULT EnumTypeSpecs(HCORENUM* phEnum, mdTypeSpec rTypeSpecs[], ULONG cmax, ULONG* pcTypeSpecs) = 0;
  virtual HRESULT EnumUserStrings(HCORENUM* phEnum, mdString rStrings[], ULONG cmax, ULONG* pcStrings) = 0;
  virtual HRESULT GetParamForMethodIndex(mdMethodDef md, ULONG ulParamSeq, mdParamDef* ppd) = 0;
  virtual HRESULT EnumCustomAttributes(HCORENUM* phEnum, mdToken tk, mdToken tkType,
                                       mdCustomAttribute rCustomAttributes[], ULONG cMax,
                                       ULONG* pcCustomAttributes) = 0;
  virtual HRESULT GetCustomAttributeProps(mdCustomAttribute cv, mdToken* ptkObj, mdToken* ptkType,
                                          const void** ppBlob, ULONG* pcbSize) = 0;
  virtual HRESULT FindTypeRef(mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef* ptr) = 0;
  virtual HRESULT GetMemberProps(mdToken mb, mdTypeDef* pClass, LPWSTR szMember, ULONG cchMember, ULONG* pchMember,
                                 DWORD* pdwAttr, PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob, ULONG* pulCodeRVA,
                                 DWORD* pdwImplFlags, DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppValue,
                                 ULONG* pcchValue) = 0;
  virtual HRESULT GetFieldProps(mdFieldDef mb, mdTypeDef* pClass, LPWSTR szField, ULONG cchField, ULONG* pchField,
                                DWORD* pdwAttr, PCCOR_SIGNATURE* ppvSigBlob, ULONG* pcbSigBlob,
                                DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppValue, ULONG* pcchValue) = 0;
  // szProperty is an output buffer (cor.h spells it LPCWSTR; same ABI).
  virtual HRESULT GetPropertyProps(mdProperty prop, mdTypeDef* pClass, LPWSTR szProperty, ULONG cchProperty,
                                   ULONG* pchProperty, DWORD* pdwPropFlags, PCCOR_SIGNATURE* ppvSig, ULONG* pbSig,
                                   DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppDefaultValue, ULONG* pcchDefaultValue,
                                   mdMethodDef* pmdSetter, mdMethodDef* pmdGetter, mdMethodDef rmdOtherMethod[],
                                   ULONG cMax, ULONG* pcOtherMethod) = 0;
  virtual HRESULT GetParamProps(mdParamDef tk, mdMethodDef* pmd, ULONG* pulSequence, LPWSTR szName, ULONG cchName,
                                ULONG* pchName, DWORD* pdwAttr, DWORD* pdwCPlusTypeFlag, UVCP_CONSTANT* ppValue,
                                ULONG* pcchValue) = 0;
  virtual HRESULT GetCustomAttributeByName(mdToken tkObj, LPCWSTR szName, const void** ppData, ULONG* pcbData) = 0;
  virtual BOOL IsValidToken(mdToken tk) = 0;
  virtual HRESULT GetNestedClassProps(mdTypeDef tdNestedClass, mdTypeDef* ptdEnclosingClass) = 0;
  virtual HRESULT GetNativeCallConvFromSig(const void* pvSig, ULONG cbSig, ULONG* pCallConv) = 0;
  virtual HRESULT IsGlobal(mdToken pd, int* pbGlobal) = 0;
};

// slots 65-72
struct IMetaDataImport2 : IMetaDataImport {
  virtual HRESULT EnumGenericParams(HCORENUM* phEnum, mdToken tk, mdGenericParam rGenericParams[], ULONG cMax,
                                    ULONG* pcGenericParams) = 0;
  virtual HRESULT GetGenericParamProps(mdGenericParam gp, ULONG* pulParamSeq, DWORD* pdwParamFlags,
                                       mdToken* ptOwner, DWORD* reserved, LPWSTR wzname, ULONG cchName,
                                       ULONG* pchName) = 0;
  virtual HRESULT GetMethodSpecProps(mdMethodSpec mi, mdToken* tkParent, PCCOR_SIGNATURE* ppvSigBlob,
                                     ULONG* pcbSigBlob) = 0;
  virtual HRESULT EnumGenericParamConstraints(HCORENUM* phEnum, mdGenericParam tk,
                                              mdGenericParamConstraint rGenericParamConstraints[], ULONG cMax,
                                              ULONG* pcGenericParamConstraints) = 0;
  virtual HRESULT GetGenericParamConstraintProps(mdGenericParamConstraint gpc, mdGenericParam* ptGenericParam,
                                                 mdToken* ptkConstraintType) = 0;
  virtual HRESULT GetPEKind(DWORD* pdwPEKind, DWORD* pdwMAchine) = 0;
  virtual HRESULT GetVersionString(LPWSTR pwzBuf, DWORD ccBufSize, DWORD* pccBufSize) = 0;
  virtual HRESULT EnumMethodSpecs(HCORENUM* phEnum, mdToken tk, mdMethodSpec rMethodSpecs[], ULONG cMax,
                                  ULONG* pcMethodSpecs) = 0;
};

// slots 3-12 (10 methods)
struct IMetaDataAssemblyEmit : IUnknown {
  virtual HRESULT DefineAssembly(const void* pbPublicKey, ULONG cbPublicKey, ULONG ulHashAlgId, LPCWSTR szName,
                                 const ASSEMBLYMETADATA* pMetaData, DWORD dwAssemblyFlags, mdAssembly* pma) = 0;
  virtual HRESULT DefineAssemblyRef(const void* pbPublicKeyOrToken, ULONG cbPublicKeyOrToken, LPCWSTR szName,
                                    const ASSEMBLYMETADATA* pMetaData, const void* pbHashValue, ULONG cbHashValue,
                                    DWORD dwAssemblyRefFlags, mdAssemblyRef* pmdar) = 0;
  virtual HRESULT DefineFile(LPCWSTR szName, const void* pbHashValue, ULONG cbHashValue, DWORD dwFileFlags,
                             mdFile* pmdf) = 0;
  virtual HRESULT DefineExportedType(LPCWSTR szName, mdToken tkImplementation, mdTypeDef tkTypeDef,
                                     DWORD dwExportedTypeFlags, mdExportedType* pmdct) = 0;
  virtual HRESULT DefineManifestResource(LPCWSTR szName, mdToken tkImplementation, DWORD dwOffset,
                                         DWORD dwResourceFlags, mdManifestResource* pmdmr) = 0;
  virtual HRESULT SetAssemblyProps(mdAssembly pma, const void* pbPublicKey, ULONG cbPublicKey, ULONG ulHashAlgId,
                                   LPCWSTR szName, const ASSEMBLYMETADATA* pMetaData, DWORD dwAssemblyFlags) = 0;
  virtual HRESULT SetAssemblyRefProps(mdAssemblyRef ar, const void* pbPublicKeyOrToken, ULONG cbPublicKeyOrToken,
                                      LPCWSTR szName, const ASSEMBLYMETADATA* pMetaData, const void* pbHashValue,
                                      ULONG cbHashValue, DWORD dwAssemblyRefFlags) = 0;
  virtual HRESULT SetFileProps(mdFile file, const void* pbHashValue, ULONG cbHashValue, DWORD dwFileFlags) = 0;
  virtual HRESULT SetExportedTypeProps(mdExportedType ct, mdToken tkImplementation, mdTypeDef tkTypeDef,
                                       DWORD dwExportedTypeFlags) = 0;
  virtual HRESULT SetManifestResourceProps(mdManifestResource mr, mdToken tkImplementation, DWORD dwOffset,
                                           DWORD dwResourceFlags) = 0;
};

// slots 3-16 (14 methods).  Note: CloseEnum returns void.
struct IMetaDataAssemblyImport : IUnknown {
  virtual HRESULT GetAssemblyProps(mdAssembly mda, const void** ppbPublicKey, ULONG* pcbPublicKey,
                                   ULONG* pulHashAlgId, LPWSTR szName, ULONG cchName, ULONG* pchName,
                                   ASSEMBLYMETADATA* pMetaData, DWORD* pdwAssemblyFlags) = 0;
  virtual HRESULT GetAssemblyRefProps(mdAssemblyRef mdar, const void** ppbPublicKeyOrToken,
                                      ULONG* pcbPublicKeyOrToken, LPWSTR szName, ULONG cchName, ULONG* pchName,
                                      ASSEMBLYMETADATA* pMetaData, const void** ppbHashValue, ULONG* pcbHashValue,
                                      DWORD* pdwAssemblyRefFlags) = 0;
  virtual HRESULT GetFileProps(mdFile mdf, LPWSTR szName, ULONG cchName, ULONG* pchName, const void** ppbHashValue,
                               ULONG* pcbHashValue, DWORD* pdwFileFlags) = 0;
  virtual HRESULT GetExportedTypeProps(mdExportedType mdct, LPWSTR szName, ULONG cchName, ULONG* pchName,
                                       mdToken* ptkImplementation, mdTypeDef* ptkTypeDef,
                                       DWORD* pdwExportedTypeFlags) = 0;
  virtual HRESULT GetManifestResourceProps(mdManifestResource mdmr, LPWSTR szName, ULONG cchName, ULONG* pchName,
                                           mdToken* ptkImplementation, DWORD* pdwOffset,
                                           DWORD* pdwResourceFlags) = 0;
  virtual HRESULT EnumAssemblyRefs(HCORENUM* phEnum, mdAssemblyRef rAssemblyRefs[], ULONG cMax,
                                   ULONG* pcTokens) = 0;
  virtual HRESULT EnumFiles(HCORENUM* phEnum, mdFile rFiles[], ULONG cMax, ULONG* pcTokens) = 0;
  virtual HRESULT EnumExportedTypes(HCORENUM* phEnum, mdExportedType rExportedTypes[], ULONG cMax,
                                    ULONG* pcTokens) = 0;
  virtual HRESULT EnumManifestResources(HCORENUM* phEnum, mdManifestResource rManifestResources[], ULONG cMax,
                                        ULONG* pcTokens) = 0;
  virtual HRESULT GetAssemblyFromScope(mdAssembly* ptkAssembly) = 0;
  virtual HRESULT FindExportedTypeByName(LPCWSTR szName, mdToken tkEnclosingType,
                                         mdExportedType* ptkExportedType) = 0;
  virtual HRESULT FindManifestResourceByName(LPCWSTR szName, mdManifestResource* ptkManifestResource) = 0;
  virtual void CloseEnum(HCORENUM hEnum) = 0;
  virtual HRESULT FindAssembliesByName(LPCWSTR szAppBase, LPCWSTR szPrivateBin, LPCWSTR szAssemblyName,
                                       IUnknown* ppIUnk[], ULONG cMax, ULONG* pcAssemblies) = 0;
};

}  // namespace clr
