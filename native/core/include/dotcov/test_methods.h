// Per-test contexts: which methods of an assembly are test methods (xunit,
// NUnit, MSTest attributes), the context name of each, and what wrapping its
// body in try/finally needs (its return type, a locals signature with two more
// locals). Reads only the image: no CLR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dotcov/byte_reader.h"

namespace dotcov {

struct TestMethod {
  uint32_t token = 0;  // MethodDef
  // "Namespace.Class.Method", nested classes joined with '+' as
  // Type.FullName (and so vstest's FullyQualifiedName) writes them.
  std::string name;
  bool returns_value = false;
  // The locals signature with an int32 (the previous context) and, when the
  // method returns a value, a local of its return type appended.
  std::vector<uint8_t> locals_signature;
  uint32_t previous_local = 0;  // index of the int32 local
  uint32_t return_local = 0;    // index of the return-value local (when returns_value)
  uint32_t original_locals_token = 0;  // the body's own locals signature token (0: none)
  std::string unsupported;  // why its body cannot be wrapped ("" when it can)
};

// True for the attribute types that make a method a test: xunit's Fact and
// Theory, NUnit's Test, TestCase, TestCaseSource and Theory, MSTest's
// TestMethod and DataTestMethod.
bool IsTestAttribute(const std::string& full_name);

// Test methods of the assembly `image`: methods with one of those attributes,
// or with an attribute type defined in the same module that derives from one.
bool FindTestMethods(Bytes image, std::vector<TestMethod>* out, std::string* error);

// Appends int32 and `return_type` (empty: none) to a LocalVarSig blob (empty:
// the method has no locals). Returns false for a blob that does not decode.
bool ExtendLocals(Bytes locals, Bytes return_type, std::vector<uint8_t>* out, uint32_t* old_count,
                  std::string* error);

// The RetType of a MethodDefSig (custom modifiers included); empty for void.
// False when the signature does not decode or the return type is one a local
// cannot hold (TypedReference).
bool ReturnTypeOf(Bytes method_signature, Bytes* return_type, std::string* error);

}  // namespace dotcov
