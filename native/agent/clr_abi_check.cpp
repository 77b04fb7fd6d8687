// Compile-time checks of clr_abi.h (sizes, offsets, constants, IIDs).
//
// Built into the agent this file contributes no code.  Built on its own with
//   g++ -std=c++20 -Wall -Wextra -DDOTCOV_CLR_ABI_SELFTEST native/agent/clr_abi_check.cpp -o /tmp/clr_abi_check
// it becomes a program that reads the vtable slot of every interface method
// (Itanium C++ ABI: a pointer to a virtual member stores 1 + the slot's byte
// offset; its ARM variant, on arm64, the offset itself and the flag in the
// adjustment) and compares it with the expected index.  The "key" table holds slot
// numbers counted independently from the runtime's interface definitions; the
// "full" table pins every method so later edits cannot shift a slot silently.
#include "clr_abi.h"

#include <cstddef>
#include <type_traits>

namespace clr {
namespace abi_check {

// Plain structs: sizes and field offsets on LP64.
static_assert(sizeof(void*) == 8, "clr_abi.h targets 64-bit only");
static_assert(sizeof(GUID) == 16 && alignof(GUID) == 4);
static_assert(sizeof(WCHAR) == 2);
static_assert(sizeof(HRESULT) == 4 && sizeof(ULONG) == 4 && sizeof(DWORD) == 4 && sizeof(BOOL) == 4);
static_assert(sizeof(ModuleID) == 8 && sizeof(FunctionID) == 8 && sizeof(ReJITID) == 8);
static_assert(sizeof(mdToken) == 4 && sizeof(CorElementType) == 4);
static_assert(sizeof(OSINFO) == 12);
static_assert(sizeof(ASSEMBLYMETADATA) == 56);
static_assert(offsetof(ASSEMBLYMETADATA, usRevisionNumber) == 6);
static_assert(offsetof(ASSEMBLYMETADATA, szLocale) == 8);
static_assert(offsetof(ASSEMBLYMETADATA, cbLocale) == 16);
static_assert(offsetof(ASSEMBLYMETADATA, rProcessor) == 24);
static_assert(offsetof(ASSEMBLYMETADATA, ulProcessor) == 32);
static_assert(offsetof(ASSEMBLYMETADATA, rOS) == 40);
static_assert(offsetof(ASSEMBLYMETADATA, ulOS) == 48);
static_assert(sizeof(COR_IL_MAP) == 12);
static_assert(offsetof(COR_IL_MAP, newOffset) == 4 && offsetof(COR_IL_MAP, fAccurate) == 8);
static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12);
static_assert(sizeof(COR_FIELD_OFFSET) == 8);
static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE) == 16);
static_assert(sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO) == 24);
static_assert(sizeof(COR_PRF_CODE_INFO) == 16);
static_assert(sizeof(COR_PRF_FUNCTION) == 16);
static_assert(sizeof(COR_PRF_METHOD) == 16);
static_assert(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO) == 48);
static_assert(offsetof(COR_PRF_ASSEMBLY_REFERENCE_INFO, szName) == 16);
static_assert(offsetof(COR_PRF_ASSEMBLY_REFERENCE_INFO, dwAssemblyRefFlags) == 44);
static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32);
static_assert(sizeof(COR_PRF_EX_CLAUSE_INFO) == 32);
static_assert(sizeof(FunctionIDOrClientID) == 8);

// Interfaces: exactly one vtable pointer, no data, polymorphic, no virtual destructor.
template <typename T>
consteval bool IsComInterface() {
  return std::is_polymorphic_v<T> && std::is_abstract_v<T> && sizeof(T) == sizeof(void*) &&
         !std::has_virtual_destructor_v<T>;
}
static_assert(IsComInterface<IUnknown>() && IsComInterface<IClassFactory>());
static_assert(IsComInterface<ICorProfilerCallback11>() && IsComInterface<ICorProfilerInfo11>());
static_assert(IsComInterface<IMethodMalloc>() && IsComInterface<ICorProfilerFunctionControl>());
static_assert(IsComInterface<IMetaDataImport2>() && IsComInterface<IMetaDataEmit2>());
static_assert(IsComInterface<IMetaDataAssemblyImport>() && IsComInterface<IMetaDataAssemblyEmit>());
static_assert(std::is_base_of_v<ICorProfilerCallback, ICorProfilerCallback11>);
static_assert(std::is_base_of_v<ICorProfilerInfo5, ICorProfilerInfo11>);

// Return types that differ from HRESULT.
static_assert(std::is_same_v<decltype(&IMetaDataImport::CloseEnum), void (IMetaDataImport::*)(HCORENUM)>);
static_assert(std::is_same_v<decltype(&IMetaDataAssemblyImport::CloseEnum), void (IMetaDataAssemblyImport::*)(HCORENUM)>);
static_assert(std::is_same_v<decltype(&IMetaDataImport::IsValidToken), BOOL (IMetaDataImport::*)(mdToken)>);
static_assert(std::is_same_v<decltype(&IMethodMalloc::Alloc), PVOID (IMethodMalloc::*)(ULONG)>);
static_assert(std::is_same_v<decltype(&IUnknown::AddRef), ULONG (IUnknown::*)()>);

// HRESULT values.
static_assert(static_cast<uint32_t>(E_FAIL) == 0x80004005u);
static_assert(static_cast<uint32_t>(E_NOINTERFACE) == 0x80004002u);
static_assert(static_cast<uint32_t>(E_OUTOFMEMORY) == 0x8007000Eu);
static_assert(static_cast<uint32_t>(E_INVALIDARG) == 0x80070057u);
static_assert(static_cast<uint32_t>(E_NOTIMPL) == 0x80004001u);
static_assert(static_cast<uint32_t>(CLASS_E_CLASSNOTAVAILABLE) == 0x80040111u);
static_assert(static_cast<uint32_t>(CLASS_E_NOAGGREGATION) == 0x80040110u);
static_assert(static_cast<uint32_t>(CORPROF_E_PROFILER_CANCEL_ACTIVATION) == 0x80131375u);
static_assert(static_cast<uint32_t>(CORPROF_E_UNSUPPORTED_CALL_SEQUENCE) == 0x80131363u);
static_assert(Failed(E_FAIL) && Succeeded(S_FALSE));

// A few constants whose composite values are easy to get wrong.
static_assert(COR_PRF_MONITOR_REMOTING_COOKIE == 0x4400 && COR_PRF_MONITOR_REMOTING_ASYNC == 0x8400);
static_assert((COR_PRF_MONITOR_IMMUTABLE & COR_PRF_DISABLE_ALL_NGEN_IMAGES) != 0);
static_assert((COR_PRF_MONITOR_IMMUTABLE & COR_PRF_MONITOR_JIT_COMPILATION) == 0);
static_assert(COR_PRF_HIGH_MONITOR_IMMUTABLE == 0x8);
static_assert(TypeFromToken(0x06000012u) == mdtMethodDef && RidFromToken(0x06000012u) == 0x12);
static_assert(IID_IUnknown != IID_IClassFactory && IID_ICorProfilerCallback2 == IID_ICorProfilerCallback2);

}  // namespace abi_check
}  // namespace clr

#ifdef DOTCOV_CLR_ABI_SELFTEST
#include <cstdio>
#include <cstring>

namespace {

int g_failures = 0;

template <typename T, typename R, typename... A>
long SlotOf(R (T::*pmf)(A...)) {
  struct Rep {
    uintptr_t ptr;
    ptrdiff_t adj;
  } rep;
  static_assert(sizeof(pmf) == sizeof(rep));
  std::memcpy(&rep, &pmf, sizeof rep);
#if defined(__aarch64__) || defined(__arm__)
  // The ARM variant of the Itanium ABI keeps the "virtual" bit in adj (2 * adjustment + 1) and the slot's
  // byte offset itself in ptr, since code addresses may be odd there (Thumb).
  if (rep.adj != 1) return -1;  // not a virtual of the primary base
  return static_cast<long>(rep.ptr / sizeof(void*));
#else
  if ((rep.ptr & 1) == 0 || rep.adj != 0) return -1;  // not a virtual of the primary base
  return static_cast<long>((rep.ptr - 1) / sizeof(void*));
#endif
}

void Expect(const char* what, long got, long want) {
  if (got != want) {
    std::printf("FAIL %s: slot %ld, expected %ld\n", what, got, want);
    ++g_failures;
  }
}

#define SLOT(iface, method, slot) Expect(#iface "::" #method, SlotOf(&clr::iface::method), slot)

void KeySlots() {
  // Counted from the runtime's interface definitions (first/last of each
  // interface, plus the methods dotcov calls or must implement).
  SLOT(IUnknown, QueryInterface, 0);
  SLOT(IUnknown, Release, 2);
  SLOT(IClassFactory, CreateInstance, 3);
  SLOT(IClassFactory, LockServer, 4);
  SLOT(ICorProfilerCallback, Initialize, 3);
  SLOT(ICorProfilerCallback, Shutdown, 4);
  SLOT(ICorProfilerCallback, ModuleLoadFinished, 14);
  SLOT(ICorProfilerCallback, ModuleUnloadStarted, 15);
  SLOT(ICorProfilerCallback, JITCompilationStarted, 23);
  SLOT(ICorProfilerCallback, JITCompilationFinished, 24);
  SLOT(ICorProfilerCallback, JITCachedFunctionSearchStarted, 25);
  SLOT(ICorProfilerCallback, JITInlining, 28);
  SLOT(ICorProfilerCallback, ExceptionCLRCatcherExecute, 71);
  SLOT(ICorProfilerCallback2, ThreadNameChanged, 72);
  SLOT(ICorProfilerCallback2, HandleDestroyed, 79);
  SLOT(ICorProfilerCallback3, InitializeForAttach, 80);
  SLOT(ICorProfilerCallback3, ProfilerDetachSucceeded, 82);
  SLOT(ICorProfilerCallback4, ReJITCompilationStarted, 83);
  SLOT(ICorProfilerCallback4, GetReJITParameters, 84);
  SLOT(ICorProfilerCallback4, SurvivingReferences2, 88);
  SLOT(ICorProfilerCallback5, ConditionalWeakTableElementReferences, 89);
  SLOT(ICorProfilerCallback6, GetAssemblyReferences, 90);
  SLOT(ICorProfilerCallback7, ModuleInMemorySymbolsUpdated, 91);
  SLOT(ICorProfilerCallback8, DynamicMethodJITCompilationStarted, 92);
  SLOT(ICorProfilerCallback8, DynamicMethodJITCompilationFinished, 93);
  SLOT(ICorProfilerCallback9, DynamicMethodUnloaded, 94);
  SLOT(ICorProfilerCallback10, EventPipeEventDelivered, 95);
  SLOT(ICorProfilerCallback10, EventPipeProviderCreated, 96);
  SLOT(ICorProfilerCallback11, LoadAsNotificationOnly, 97);
  SLOT(ICorProfilerInfo, GetClassFromObject, 3);
  SLOT(ICorProfilerInfo, GetEventMask, 6);
  SLOT(ICorProfilerInfo, GetClassIDInfo, 14);
  SLOT(ICorProfilerInfo, GetFunctionInfo, 15);
  SLOT(ICorProfilerInfo, SetEventMask, 16);
  SLOT(ICorProfilerInfo, GetTokenAndMetaDataFromFunction, 19);
  SLOT(ICorProfilerInfo, GetModuleInfo, 20);
  SLOT(ICorProfilerInfo, GetModuleMetaData, 21);
  SLOT(ICorProfilerInfo, GetILFunctionBody, 22);
  SLOT(ICorProfilerInfo, GetILFunctionBodyAllocator, 23);
  SLOT(ICorProfilerInfo, SetILFunctionBody, 24);
  SLOT(ICorProfilerInfo, GetAssemblyInfo, 26);
  SLOT(ICorProfilerInfo, SetILInstrumentedCodeMap, 29);
  SLOT(ICorProfilerInfo, GetILToNativeMapping, 35);
  SLOT(ICorProfilerInfo2, DoStackSnapshot, 36);
  SLOT(ICorProfilerInfo2, GetFunctionInfo2, 38);
  SLOT(ICorProfilerInfo2, GetNotifiedExceptionClauseInfo, 56);
  SLOT(ICorProfilerInfo3, EnumJITedFunctions, 57);
  SLOT(ICorProfilerInfo3, GetRuntimeInformation, 67);
  SLOT(ICorProfilerInfo3, GetModuleInfo2, 70);
  SLOT(ICorProfilerInfo4, EnumThreads, 71);
  SLOT(ICorProfilerInfo4, RequestReJIT, 73);
  SLOT(ICorProfilerInfo4, GetObjectSize2, 80);
  SLOT(ICorProfilerInfo5, GetEventMask2, 81);
  SLOT(ICorProfilerInfo5, SetEventMask2, 82);
  SLOT(ICorProfilerInfo6, EnumNgenModuleMethodsInliningThisMethod, 83);
  SLOT(ICorProfilerInfo7, ApplyMetaData, 84);
  SLOT(ICorProfilerInfo7, ReadInMemorySymbols, 86);
  SLOT(ICorProfilerInfo8, IsFunctionDynamic, 87);
  SLOT(ICorProfilerInfo8, GetDynamicFunctionInfo, 89);
  SLOT(ICorProfilerInfo9, GetNativeCodeStartAddresses, 90);
  SLOT(ICorProfilerInfo9, GetCodeInfo4, 92);
  SLOT(ICorProfilerInfo10, EnumerateObjectReferences, 93);
  SLOT(ICorProfilerInfo10, ResumeRuntime, 98);
  SLOT(ICorProfilerInfo11, GetEnvironmentVariable, 99);
  SLOT(ICorProfilerInfo11, SetEnvironmentVariable, 100);
  SLOT(IMethodMalloc, Alloc, 3);
  SLOT(ICorProfilerFunctionControl, SetCodegenFlags, 3);
  SLOT(ICorProfilerFunctionControl, SetILFunctionBody, 4);
  SLOT(ICorProfilerFunctionControl, SetILInstrumentedCodeMap, 5);
  SLOT(ICorProfilerModuleEnum, Next, 7);
  SLOT(IMetaDataImport, CloseEnum, 3);
  SLOT(IMetaDataImport, EnumTypeDefs, 6);
  SLOT(IMetaDataImport, FindTypeDefByName, 9);
  SLOT(IMetaDataImport, GetScopeProps, 10);
  SLOT(IMetaDataImport, GetTypeDefProps, 12);
  SLOT(IMetaDataImport, GetTypeRefProps, 14);
  SLOT(IMetaDataImport, EnumMethods, 18);
  SLOT(IMetaDataImport, FindMethod, 27);
  SLOT(IMetaDataImport, GetMethodProps, 30);
  SLOT(IMetaDataImport, GetMemberRefProps, 31);
  SLOT(IMetaDataImport, FindTypeRef, 55);
  SLOT(IMetaDataImport, GetCustomAttributeByName, 60);
  SLOT(IMetaDataImport, GetNestedClassProps, 62);
  SLOT(IMetaDataImport, IsGlobal, 64);
  SLOT(IMetaDataImport2, EnumGenericParams, 65);
  SLOT(IMetaDataImport2, EnumMethodSpecs, 72);
  SLOT(IMetaDataEmit, SetModuleProps, 3);
  SLOT(IMetaDataEmit, DefineTypeDef, 7);
  SLOT(IMetaDataEmit, DefineMethod, 10);
  SLOT(IMetaDataEmit, DefineTypeRefByName, 12);
  SLOT(IMetaDataEmit, DefineMemberRef, 14);
  SLOT(IMetaDataEmit, SetRVA, 22);
  SLOT(IMetaDataEmit, GetTokenFromSig, 23);
  SLOT(IMetaDataEmit, GetTokenFromTypeSpec, 26);  // after DefineModuleRef, SetParent (cor.h); per-test contexts
  SLOT(IMetaDataEmit, DefineUserString, 28);
  SLOT(IMetaDataEmit, SetMethodProps, 30);
  SLOT(IMetaDataEmit, DefineCustomAttribute, 37);
  SLOT(IMetaDataEmit, DefineField, 39);
  SLOT(IMetaDataEmit, MergeEnd, 51);
  SLOT(IMetaDataEmit2, DefineMethodSpec, 52);
  SLOT(IMetaDataEmit2, ResetENCLog, 59);
  SLOT(IMetaDataAssemblyImport, GetAssemblyProps, 3);
  SLOT(IMetaDataAssemblyImport, GetAssemblyRefProps, 4);
  SLOT(IMetaDataAssemblyImport, EnumAssemblyRefs, 8);
  SLOT(IMetaDataAssemblyImport, CloseEnum, 15);
  SLOT(IMetaDataAssemblyImport, FindAssembliesByName, 16);
  SLOT(IMetaDataAssemblyEmit, DefineAssembly, 3);
  SLOT(IMetaDataAssemblyEmit, DefineAssemblyRef, 4);
  SLOT(IMetaDataAssemblyEmit, SetManifestResourceProps, 12);
}

void FullSlots() {
  SLOT(IUnknown, QueryInterface, 0);
  SLOT(IUnknown, AddRef, 1);
  SLOT(IUnknown, Release, 2);
  SLOT(IClassFactory, CreateInstance, 3);
  SLOT(IClassFactory, LockServer, 4);
  SLOT(ICorProfilerCallback, Initialize, 3);
  SLOT(ICorProfilerCallback, Shutdown, 4);
  SLOT(ICorProfilerCallback, AppDomainCreationStarted, 5);
  SLOT(ICorProfilerCallback, AppDomainCreationFinished, 6);
  SLOT(ICorProfilerCallback, AppDomainShutdownStarted, 7);
  SLOT(ICorProfilerCallback, AppDomainShutdownFinished, 8);
  SLOT(ICorProfilerCallback, AssemblyLoadStarted, 9);
  SLOT(ICorProfilerCallback, AssemblyLoadFinished, 10);
  SLOT(ICorProfilerCallback, AssemblyUnloadStarted, 11);
  SLOT(ICorProfilerCallback, AssemblyUnloadFinished, 12);
  SLOT(ICorProfilerCallback, ModuleLoadStarted, 13);
  SLOT(ICorProfilerCallback, ModuleLoadFinished, 14);
  SLOT(ICorProfilerCallback, ModuleUnloadStarted, 15);
  SLOT(ICorProfilerCallback, ModuleUnloadFinished, 16);
  SLOT(ICorProfilerCallback, ModuleAttachedToAssembly, 17);
  SLOT(ICorProfilerCallback, ClassLoadStarted, 18);
  SLOT(ICorProfilerCallback, ClassLoadFinished, 19);
  SLOT(ICorProfilerCallback, ClassUnloadStarted, 20);
  SLOT(ICorProfilerCallback, ClassUnloadFinished, 21);
  SLOT(ICorProfilerCallback, FunctionUnloadStarted, 22);
  SLOT(ICorProfilerCallback, JITCompilationStarted, 23);
  SLOT(ICorProfilerCallback, JITCompilationFinished, 24);
  SLOT(ICorProfilerCallback, JITCachedFunctionSearchStarted, 25);
  SLOT(ICorProfilerCallback, JITCachedFunctionSearchFinished, 26);
  SLOT(ICorProfilerCallback, JITFunctionPitched, 27);
  SLOT(ICorProfilerCallback, JITInlining, 28);
  SLOT(ICorProfilerCallback, ThreadCreated, 29);
  SLOT(ICorProfilerCallback, ThreadDestroyed, 30);
  SLOT(ICorProfilerCallback, ThreadAssignedToOSThread, 31);
  SLOT(ICorProfilerCallback, RemotingClientInvocationStarted, 32);
  SLOT(ICorProfilerCallback, RemotingClientSendingMessage, 33);
  SLOT(ICorProfilerCallback, RemotingClientReceivingReply, 34);
  SLOT(ICorProfilerCallback, RemotingClientInvocationFinished, 35);
  SLOT(ICorProfilerCallback, RemotingServerReceivingMessage, 36);
  SLOT(ICorProfilerCallback, RemotingServerInvocationStarted, 37);
  SLOT(ICorProfilerCallback, RemotingServerInvocationReturned, 38);
  SLOT(ICorProfilerCallback, RemotingServerSendingReply, 39);
  SLOT(ICorProfilerCallback, UnmanagedToManagedTransition, 40);
  SLOT(ICorProfilerCallback, ManagedToUnmanagedTransition, 41);
  SLOT(ICorProfilerCallback, RuntimeSuspendStarted, 42);
  SLOT(ICorProfilerCallback, RuntimeSuspendFinished, 43);
  SLOT(ICorProfilerCallback, RuntimeSuspendAborted, 44);
  SLOT(ICorProfilerCallback, RuntimeResumeStarted, 45);
  SLOT(ICorProfilerCallback, RuntimeResumeFinished, 46);
  SLOT(ICorProfilerCallback, RuntimeThreadSuspended, 47);
  SLOT(ICorProfilerCallback, RuntimeThreadResumed, 48);
  SLOT(ICorProfilerCallback, MovedReferences, 49);
  SLOT(ICorProfilerCallback, ObjectAllocated, 50);
  SLOT(ICorProfilerCallback, ObjectsAllocatedByClass, 51);
  SLOT(ICorProfilerCallback, ObjectReferences, 52);
  SLOT(ICorProfilerCallback, RootReferences, 53);
  SLOT(ICorProfilerCallback, ExceptionThrown, 54);
  SLOT(ICorProfilerCallback, ExceptionSearchFunctionEnter, 55);
  SLOT(ICorProfilerCallback, ExceptionSearchFunctionLeave, 56);
  SLOT(ICorProfilerCallback, ExceptionSearchFilterEnter, 57);
  SLOT(ICorProfilerCallback, ExceptionSearchFilterLeave, 58);
  SLOT(ICorProfilerCallback, ExceptionSearchCatcherFound, 59);
  SLOT(ICorProfilerCallback, ExceptionOSHandlerEnter, 60);
  SLOT(ICorProfilerCallback, ExceptionOSHandlerLeave, 61);
  SLOT(ICorProfilerCallback, ExceptionUnwindFunctionEnter, 62);
  SLOT(ICorProfilerCallback, ExceptionUnwindFunctionLeave, 63);
  SLOT(ICorProfilerCallback, ExceptionUnwindFinallyEnter, 64);
  SLOT(ICorProfilerCallback, ExceptionUnwindFinallyLeave, 65);
  SLOT(ICorProfilerCallback, ExceptionCatcherEnter, 66);
  SLOT(ICorProfilerCallback, ExceptionCatcherLeave, 67);
  SLOT(ICorProfilerCallback, COMClassicVTableCreated, 68);
  SLOT(ICorProfilerCallback, COMClassicVTableDestroyed, 69);
  SLOT(ICorProfilerCallback, ExceptionCLRCatcherFound, 70);
  SLOT(ICorProfilerCallback, ExceptionCLRCatcherExecute, 71);
  SLOT(ICorProfilerCallback2, ThreadNameChanged, 72);
  SLOT(ICorProfilerCallback2, GarbageCollectionStarted, 73);
  SLOT(ICorProfilerCallback2, SurvivingReferences, 74);
  SLOT(ICorProfilerCallback2, GarbageCollectionFinished, 75);
  SLOT(ICorProfilerCallback2, FinalizeableObjectQueued, 76);
  SLOT(ICorProfilerCallback2, RootReferences2, 77);
  SLOT(ICorProfilerCallback2, HandleCreated, 78);
  SLOT(ICorProfilerCallback2, HandleDestroyed, 79);
  SLOT(ICorProfilerCallback3, InitializeForAttach, 80);
  SLOT(ICorProfilerCallback3, ProfilerAttachComplete, 81);
  SLOT(ICorProfilerCallback3, ProfilerDetachSucceeded, 82);
  SLOT(ICorProfilerCallback4, ReJITCompilationStarted, 83);
  SLOT(ICorProfilerCallback4, GetReJITParameters, 84);
  SLOT(ICorProfilerCallback4, ReJITCompilationFinished, 85);
  SLOT(ICorProfilerCallback4, ReJITError, 86);
  SLOT(ICorProfilerCallback4, MovedReferences2, 87);
  SLOT(ICorProfilerCallback4, SurvivingReferences2, 88);
  SLOT(ICorProfilerCallback5, ConditionalWeakTableElementReferences, 89);
  SLOT(ICorProfilerCallback6, GetAssemblyReferences, 90);
  SLOT(ICorProfilerCallback7, ModuleInMemorySymbolsUpdated, 91);
  SLOT(ICorProfilerCallback8, DynamicMethodJITCompilationStarted, 92);
  SLOT(ICorProfilerCallback8, DynamicMethodJITCompilationFinished, 93);
  SLOT(ICorProfilerCallback9, DynamicMethodUnloaded, 94);
  SLOT(ICorProfilerCallback10, EventPipeEventDelivered, 95);
  SLOT(ICorProfilerCallback10, EventPipeProviderCreated, 96);
  SLOT(ICorProfilerCallback11, LoadAsNotificationOnly, 97);
  SLOT(IMethodMalloc, Alloc, 3);
  SLOT(ICorProfilerFunctionControl, SetCodegenFlags, 3);
  SLOT(ICorProfilerFunctionControl, SetILFunctionBody, 4);
  SLOT(ICorProfilerFunctionControl, SetILInstrumentedCodeMap, 5);
  SLOT(ICorProfilerAssemblyReferenceProvider, AddAssemblyReference, 3);
  SLOT(ICorProfilerObjectEnum, Skip, 3);
  SLOT(ICorProfilerObjectEnum, Reset, 4);
  SLOT(ICorProfilerObjectEnum, Clone, 5);
  SLOT(ICorProfilerObjectEnum, GetCount, 6);
  SLOT(ICorProfilerObjectEnum, Next, 7);
  SLOT(ICorProfilerFunctionEnum, Skip, 3);
  SLOT(ICorProfilerFunctionEnum, Reset, 4);
  SLOT(ICorProfilerFunctionEnum, Clone, 5);
  SLOT(ICorProfilerFunctionEnum, GetCount, 6);
  SLOT(ICorProfilerFunctionEnum, Next, 7);
  SLOT(ICorProfilerModuleEnum, Skip, 3);
  SLOT(ICorProfilerModuleEnum, Reset, 4);
  SLOT(ICorProfilerModuleEnum, Clone, 5);
  SLOT(ICorProfilerModuleEnum, GetCount, 6);
  SLOT(ICorProfilerModuleEnum, Next, 7);
  SLOT(ICorProfilerThreadEnum, Skip, 3);
  SLOT(ICorProfilerThreadEnum, Reset, 4);
  SLOT(ICorProfilerThreadEnum, Clone, 5);
  SLOT(ICorProfilerThreadEnum, GetCount, 6);
  SLOT(ICorProfilerThreadEnum, Next, 7);
  SLOT(ICorProfilerMethodEnum, Skip, 3);
  SLOT(ICorProfilerMethodEnum, Reset, 4);
  SLOT(ICorProfilerMethodEnum, Clone, 5);
  SLOT(ICorProfilerMethodEnum, GetCount, 6);
  SLOT(ICorProfilerMethodEnum, Next, 7);
  SLOT(ICorProfilerInfo, GetClassFromObject, 3);
  SLOT(ICorProfilerInfo, GetClassFromToken, 4);
  SLOT(ICorProfilerInfo, GetCodeInfo, 5);
  SLOT(ICorProfilerInfo, GetEventMask, 6);
  SLOT(ICorProfilerInfo, GetFunctionFromIP, 7);
  SLOT(ICorProfilerInfo, GetFunctionFromToken, 8);
  SLOT(ICorProfilerInfo, GetHandleFromThread, 9);
  SLOT(ICorProfilerInfo, GetObjectSize, 10);
  SLOT(ICorProfilerInfo, IsArrayClass, 11);
  SLOT(ICorProfilerInfo, GetThreadInfo, 12);
  SLOT(ICorProfilerInfo, GetCurrentThreadID, 13);
  SLOT(ICorProfilerInfo, GetClassIDInfo, 14);
  SLOT(ICorProfilerInfo, GetFunctionInfo, 15);
  SLOT(ICorProfilerInfo, SetEventMask, 16);
  SLOT(ICorProfilerInfo, SetEnterLeaveFunctionHooks, 17);
  SLOT(ICorProfilerInfo, SetFunctionIDMapper, 18);
  SLOT(ICorProfilerInfo, GetTokenAndMetaDataFromFunction, 19);
  SLOT(ICorProfilerInfo, GetModuleInfo, 20);
  SLOT(ICorProfilerInfo, GetModuleMetaData, 21);
  SLOT(ICorProfilerInfo, GetILFunctionBody, 22);
  SLOT(ICorProfilerInfo, GetILFunctionBodyAllocator, 23);
  SLOT(ICorProfilerInfo, SetILFunctionBody, 24);
  SLOT(ICorProfilerInfo, GetAppDomainInfo, 25);
  SLOT(ICorProfilerInfo, GetAssemblyInfo, 26);
  SLOT(ICorProfilerInfo, SetFunctionReJIT, 27);
  SLOT(ICorProfilerInfo, ForceGC, 28);
  SLOT(ICorProfilerInfo, SetILInstrumentedCodeMap, 29);
  SLOT(ICorProfilerInfo, GetInprocInspectionInterface, 30);
  SLOT(ICorProfilerInfo, GetInprocInspectionIThisThread, 31);
  SLOT(ICorProfilerInfo, GetThreadContext, 32);
  SLOT(ICorProfilerInfo, BeginInprocDebugging, 33);
  SLOT(ICorProfilerInfo, EndInprocDebugging, 34);
  SLOT(ICorProfilerInfo, GetILToNativeMapping, 35);
  SLOT(ICorProfilerInfo2, DoStackSnapshot, 36);
  SLOT(ICorProfilerInfo2, SetEnterLeaveFunctionHooks2, 37);
  SLOT(ICorProfilerInfo2, GetFunctionInfo2, 38);
  SLOT(ICorProfilerInfo2, GetStringLayout, 39);
  SLOT(ICorProfilerInfo2, GetClassLayout, 40);
  SLOT(ICorProfilerInfo2, GetClassIDInfo2, 41);
  SLOT(ICorProfilerInfo2, GetCodeInfo2, 42);
  SLOT(ICorProfilerInfo2, GetClassFromTokenAndTypeArgs, 43);
  SLOT(ICorProfilerInfo2, GetFunctionFromTokenAndTypeArgs, 44);
  SLOT(ICorProfilerInfo2, EnumModuleFrozenObjects, 45);
  SLOT(ICorProfilerInfo2, GetArrayObjectInfo, 46);
  SLOT(ICorProfilerInfo2, GetBoxClassLayout, 47);
  SLOT(ICorProfilerInfo2, GetThreadAppDomain, 48);
  SLOT(ICorProfilerInfo2, GetRVAStaticAddress, 49);
  SLOT(ICorProfilerInfo2, GetAppDomainStaticAddress, 50);
  SLOT(ICorProfilerInfo2, GetThreadStaticAddress, 51);
  SLOT(ICorProfilerInfo2, GetContextStaticAddress, 52);
  SLOT(ICorProfilerInfo2, GetStaticFieldInfo, 53);
  SLOT(ICorProfilerInfo2, GetGenerationBounds, 54);
  SLOT(ICorProfilerInfo2, GetObjectGeneration, 55);
  SLOT(ICorProfilerInfo2, GetNotifiedExceptionClauseInfo, 56);
  SLOT(ICorProfilerInfo3, EnumJITedFunctions, 57);
  SLOT(ICorProfilerInfo3, RequestProfilerDetach, 58);
  SLOT(ICorProfilerInfo3, SetFunctionIDMapper2, 59);
  SLOT(ICorProfilerInfo3, GetStringLayout2, 60);
  SLOT(ICorProfilerInfo3, SetEnterLeaveFunctionHooks3, 61);
  SLOT(ICorProfilerInfo3, SetEnterLeaveFunctionHooks3WithInfo, 62);
  SLOT(ICorProfilerInfo3, GetFunctionEnter3Info, 63);
  SLOT(ICorProfilerInfo3, GetFunctionLeave3Info, 64);
  SLOT(ICorProfilerInfo3, GetFunctionTailcall3Info, 65);
  SLOT(ICorProfilerInfo3, EnumModules, 66);
  SLOT(ICorProfilerInfo3, GetRuntimeInformation, 67);
  SLOT(ICorProfilerInfo3, GetThreadStaticAddress2, 68);
  SLOT(ICorProfilerInfo3, GetAppDomainsContainingModule, 69);
  SLOT(ICorProfilerInfo3, GetModuleInfo2, 70);
  SLOT(ICorProfilerInfo4, EnumThreads, 71);
  SLOT(ICorProfilerInfo4, InitializeCurrentThread, 72);
  SLOT(ICorProfilerInfo4, RequestReJIT, 73);
  SLOT(ICorProfilerInfo4, RequestRevert, 74);
  SLOT(ICorProfilerInfo4, GetCodeInfo3, 75);
  SLOT(ICorProfilerInfo4, GetFunctionFromIP2, 76);
  SLOT(ICorProfilerInfo4, GetReJITIDs, 77);
  SLOT(ICorProfilerInfo4, GetILToNativeMapping2, 78);
  SLOT(ICorProfilerInfo4, EnumJITedFunctions2, 79);
  SLOT(ICorProfilerInfo4, GetObjectSize2, 80);
  SLOT(ICorProfilerInfo5, GetEventMask2, 81);
  SLOT(ICorProfilerInfo5, SetEventMask2, 82);
  SLOT(ICorProfilerInfo6, EnumNgenModuleMethodsInliningThisMethod, 83);
  SLOT(ICorProfilerInfo7, ApplyMetaData, 84);
  SLOT(ICorProfilerInfo7, GetInMemorySymbolsLength, 85);
  SLOT(ICorProfilerInfo7, ReadInMemorySymbols, 86);
  SLOT(ICorProfilerInfo8, IsFunctionDynamic, 87);
  SLOT(ICorProfilerInfo8, GetFunctionFromIP3, 88);
  SLOT(ICorProfilerInfo8, GetDynamicFunctionInfo, 89);
  SLOT(ICorProfilerInfo9, GetNativeCodeStartAddresses, 90);
  SLOT(ICorProfilerInfo9, GetILToNativeMapping3, 91);
  SLOT(ICorProfilerInfo9, GetCodeInfo4, 92);
  SLOT(ICorProfilerInfo10, EnumerateObjectReferences, 93);
  SLOT(ICorProfilerInfo10, IsFrozenObject, 94);
  SLOT(ICorProfilerInfo10, GetLOHObjectSizeThreshold, 95);
  SLOT(ICorProfilerInfo10, RequestReJITWithInliners, 96);
  SLOT(ICorProfilerInfo10, SuspendRuntime, 97);
  SLOT(ICorProfilerInfo10, ResumeRuntime, 98);
  SLOT(ICorProfilerInfo11, GetEnvironmentVariable, 99);
  SLOT(ICorProfilerInfo11, SetEnvironmentVariable, 100);
  SLOT(IMetaDataEmit, SetModuleProps, 3);
  SLOT(IMetaDataEmit, Save, 4);
  SLOT(IMetaDataEmit, SaveToStream, 5);
  SLOT(IMetaDataEmit, GetSaveSize, 6);
  SLOT(IMetaDataEmit, DefineTypeDef, 7);
  SLOT(IMetaDataEmit, DefineNestedType, 8);
  SLOT(IMetaDataEmit, SetHandler, 9);
  SLOT(IMetaDataEmit, DefineMethod, 10);
  SLOT(IMetaDataEmit, DefineMethodImpl, 11);
  SLOT(IMetaDataEmit, DefineTypeRefByName, 12);
  SLOT(IMetaDataEmit, DefineImportType, 13);
  SLOT(IMetaDataEmit, DefineMemberRef, 14);
  SLOT(IMetaDataEmit, DefineImportMember, 15);
  SLOT(IMetaDataEmit, DefineEvent, 16);
  SLOT(IMetaDataEmit, SetClassLayout, 17);
  SLOT(IMetaDataEmit, DeleteClassLayout, 18);
  SLOT(IMetaDataEmit, SetFieldMarshal, 19);
  SLOT(IMetaDataEmit, DeleteFieldMarshal, 20);
  SLOT(IMetaDataEmit, DefinePermissionSet, 21);
  SLOT(IMetaDataEmit, SetRVA, 22);
  SLOT(IMetaDataEmit, GetTokenFromSig, 23);
  SLOT(IMetaDataEmit, DefineModuleRef, 24);
  SLOT(IMetaDataEmit, SetParent, 25);
  SLOT(IMetaDataEmit, GetTokenFromTypeSpec, 26);
  SLOT(IMetaDataEmit, SaveToMemory, 27);
  SLOT(IMetaDataEmit, DefineUserString, 28);
  SLOT(IMetaDataEmit, DeleteToken, 29);
  SLOT(IMetaDataEmit, SetMethodProps, 30);
  SLOT(IMetaDataEmit, SetTypeDefProps, 31);
  SLOT(IMetaDataEmit, SetEventProps, 32);
  SLOT(IMetaDataEmit, SetPermissionSetProps, 33);
  SLOT(IMetaDataEmit, DefinePinvokeMap, 34);
  SLOT(IMetaDataEmit, SetPinvokeMap, 35);
  SLOT(IMetaDataEmit, DeletePinvokeMap, 36);
  SLOT(IMetaDataEmit, DefineCustomAttribute, 37);
  SLOT(IMetaDataEmit, SetCustomAttributeValue, 38);
  SLOT(IMetaDataEmit, DefineField, 39);
  SLOT(IMetaDataEmit, DefineProperty, 40);
  SLOT(IMetaDataEmit, DefineParam, 41);
  SLOT(IMetaDataEmit, SetFieldProps, 42);
  SLOT(IMetaDataEmit, SetPropertyProps, 43);
  SLOT(IMetaDataEmit, SetParamProps, 44);
  SLOT(IMetaDataEmit, DefineSecurityAttributeSet, 45);
  SLOT(IMetaDataEmit, ApplyEditAndContinue, 46);
  SLOT(IMetaDataEmit, TranslateSigWithScope, 47);
  SLOT(IMetaDataEmit, SetMethodImplFlags, 48);
  SLOT(IMetaDataEmit, SetFieldRVA, 49);
  SLOT(IMetaDataEmit, Merge, 50);
  SLOT(IMetaDataEmit, MergeEnd, 51);
  SLOT(IMetaDataEmit2, DefineMethodSpec, 52);
  SLOT(IMetaDataEmit2, GetDeltaSaveSize, 53);
  SLOT(IMetaDataEmit2, SaveDelta, 54);
  SLOT(IMetaDataEmit2, SaveDeltaToStream, 55);
  SLOT(IMetaDataEmit2, SaveDeltaToMemory, 56);
  SLOT(IMetaDataEmit2, DefineGenericParam, 57);
  SLOT(IMetaDataEmit2, SetGenericParamProps, 58);
  SLOT(IMetaDataEmit2, ResetENCLog, 59);
  SLOT(IMetaDataImport, CloseEnum, 3);
  SLOT(IMetaDataImport, CountEnum, 4);
  SLOT(IMetaDataImport, ResetEnum, 5);
  SLOT(IMetaDataImport, EnumTypeDefs, 6);
  SLOT(IMetaDataImport, EnumInterfaceImpls, 7);
  SLOT(IMetaDataImport, EnumTypeRefs, 8);
  SLOT(IMetaDataImport, FindTypeDefByName, 9);
  SLOT(IMetaDataImport, GetScopeProps, 10);
  SLOT(IMetaDataImport, GetModuleFromScope, 11);
  SLOT(IMetaDataImport, GetTypeDefProps, 12);
  SLOT(IMetaDataImport, GetInterfaceImplProps, 13);
  SLOT(IMetaDataImport, GetTypeRefProps, 14);
  SLOT(IMetaDataImport, ResolveTypeRef, 15);
  SLOT(IMetaDataImport, EnumMembers, 16);
  SLOT(IMetaDataImport, EnumMembersWithName, 17);
  SLOT(IMetaDataImport, EnumMethods, 18);
  SLOT(IMetaDataImport, EnumMethodsWithName, 19);
  SLOT(IMetaDataImport, EnumFields, 20);
  SLOT(IMetaDataImport, EnumFieldsWithName, 21);
  SLOT(IMetaDataImport, EnumParams, 22);
  SLOT(IMetaDataImport, EnumMemberRefs, 23);
  SLOT(IMetaDataImport, EnumMethodImpls, 24);
  SLOT(IMetaDataImport, EnumPermissionSets, 25);
  SLOT(IMetaDataImport, FindMember, 26);
  SLOT(IMetaDataImport, FindMethod, 27);
  SLOT(IMetaDataImport, FindField, 28);
  SLOT(IMetaDataImport, FindMemberRef, 29);
  SLOT(IMetaDataImport, GetMethodProps, 30);
  SLOT(IMetaDataImport, GetMemberRefProps, 31);
  SLOT(IMetaDataImport, EnumProperties, 32);
  SLOT(IMetaDataImport, EnumEvents, 33);
  SLOT(IMetaDataImport, GetEventProps, 34);
  SLOT(IMetaDataImport, EnumMethodSemantics, 35);
  SLOT(IMetaDataImport, GetMethodSemantics, 36);
  SLOT(IMetaDataImport, GetClassLayout, 37);
  SLOT(IMetaDataImport, GetFieldMarshal, 38);
  SLOT(IMetaDataImport, GetRVA, 39);
  SLOT(IMetaDataImport, GetPermissionSetProps, 40);
  SLOT(IMetaDataImport, GetSigFromToken, 41);
  SLOT(IMetaDataImport, GetModuleRefProps, 42);
  SLOT(IMetaDataImport, EnumModuleRefs, 43);
  SLOT(IMetaDataImport, GetTypeSpecFromToken, 44);
  SLOT(IMetaDataImport, GetNameFromToken, 45);
  SLOT(IMetaDataImport, EnumUnresolvedMethods, 46);
  SLOT(IMetaDataImport, GetUserString, 47);
  SLOT(IMetaDataImport, GetPinvokeMap, 48);
  SLOT(IMetaDataImport, EnumSignatures, 49);
  SLOT(IMetaDataImport, EnumTypeSpecs, 50);
  SLOT(IMetaDataImport, EnumUserStrings, 51);
  SLOT(IMetaDataImport, GetParamForMethodIndex, 52);
  SLOT(IMetaDataImport, EnumCustomAttributes, 53);
  SLOT(IMetaDataImport, GetCustomAttributeProps, 54);
  SLOT(IMetaDataImport, FindTypeRef, 55);
  SLOT(IMetaDataImport, GetMemberProps, 56);
  SLOT(IMetaDataImport, GetFieldProps, 57);
  SLOT(IMetaDataImport, GetPropertyProps, 58);
  SLOT(IMetaDataImport, GetParamProps, 59);
  SLOT(IMetaDataImport, GetCustomAttributeByName, 60);
  SLOT(IMetaDataImport, IsValidToken, 61);
  SLOT(IMetaDataImport, GetNestedClassProps, 62);
  SLOT(IMetaDataImport, GetNativeCallConvFromSig, 63);
  SLOT(IMetaDataImport, IsGlobal, 64);
  SLOT(IMetaDataImport2, EnumGenericParams, 65);
  SLOT(IMetaDataImport2, GetGenericParamProps, 66);
  SLOT(IMetaDataImport2, GetMethodSpecProps, 67);
  SLOT(IMetaDataImport2, EnumGenericParamConstraints, 68);
  SLOT(IMetaDataImport2, GetGenericParamConstraintProps, 69);
  SLOT(IMetaDataImport2, GetPEKind, 70);
  SLOT(IMetaDataImport2, GetVersionString, 71);
  SLOT(IMetaDataImport2, EnumMethodSpecs, 72);
  SLOT(IMetaDataAssemblyEmit, DefineAssembly, 3);
  SLOT(IMetaDataAssemblyEmit, DefineAssemblyRef, 4);
  SLOT(IMetaDataAssemblyEmit, DefineFile, 5);
  SLOT(IMetaDataAssemblyEmit, DefineExportedType, 6);
  SLOT(IMetaDataAssemblyEmit, DefineManifestResource, 7);
  SLOT(IMetaDataAssemblyEmit, SetAssemblyProps, 8);
  SLOT(IMetaDataAssemblyEmit, SetAssemblyRefProps, 9);
  SLOT(IMetaDataAssemblyEmit, SetFileProps, 10);
  SLOT(IMetaDataAssemblyEmit, SetExportedTypeProps, 11);
  SLOT(IMetaDataAssemblyEmit, SetManifestResourceProps, 12);
  SLOT(IMetaDataAssemblyImport, GetAssemblyProps, 3);
  SLOT(IMetaDataAssemblyImport, GetAssemblyRefProps, 4);
  SLOT(IMetaDataAssemblyImport, GetFileProps, 5);
  SLOT(IMetaDataAssemblyImport, GetExportedTypeProps, 6);
  SLOT(IMetaDataAssemblyImport, GetManifestResourceProps, 7);
  SLOT(IMetaDataAssemblyImport, EnumAssemblyRefs, 8);
  SLOT(IMetaDataAssemblyImport, EnumFiles, 9);
  SLOT(IMetaDataAssemblyImport, EnumExportedTypes, 10);
  SLOT(IMetaDataAssemblyImport, EnumManifestResources, 11);
  SLOT(IMetaDataAssemblyImport, GetAssemblyFromScope, 12);
  SLOT(IMetaDataAssemblyImport, FindExportedTypeByName, 13);
  SLOT(IMetaDataAssemblyImport, FindManifestResourceByName, 14);
  SLOT(IMetaDataAssemblyImport, CloseEnum, 15);
  SLOT(IMetaDataAssemblyImport, FindAssembliesByName, 16);
}

}  // namespace

int main() {
  KeySlots();
  FullSlots();
  if (g_failures) {
    std::printf("%d slot mismatches\n", g_failures);
    return 1;
  }
  std::printf("clr_abi.h: all vtable slots as expected\n");
  return 0;
}
#endif  // DOTCOV_CLR_ABI_SELFTEST
