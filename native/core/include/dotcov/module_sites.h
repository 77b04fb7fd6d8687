// What one module contributes to coverage: its identity for the data file, the
// facts the filters need, and its probe sites (every non-hidden sequence point).
#pragma once

#include <string>
#include <vector>

#include "dotcov/data_file.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/metadata.h"
#include "dotcov/module_filter.h"
#include "dotcov/module_info.h"

namespace dotcov {

// Filter facts from loaded symbols.
ModuleFacts FactsOf(const ModuleSymbols& symbols);

// The identity the data file records (MVID, PDB id, path).
ModuleIdentity IdentityOf(const ModuleSymbols& symbols);

// Appends the condition sites of method `token` with body `body` (unsorted): one per outcome of each of its
// conditional branches and switches (kinds kBranchFallThrough and kBranchTarget + i), two per condition computed
// into a value (il::FindValueConditions: kValueFalse, kValueTrue) and three per short-circuit right operand
// (il::FindShortCircuitOperands: kOperandSkipped, kOperandFalse, kOperandTrue).
void AddConditionSites(const MetadataReader& md, uint32_t token, const il::MethodBody& body,
                       std::vector<ProbeSite>* sites);

// Adds AddConditionSites for every method that has sites in *sites, decoding the bodies from the assembly file
// `image`; keeps *sites sorted by (token, IL offset, kind). Methods whose bodies do not decode keep their sequence
// points only.
void AddBranchSites(Bytes image, std::vector<ProbeSite>* sites);

// Whether the method a call token names (MethodDef or MemberRef of `md`) returns bool, read from its
// signature (il::FindValueConditions counts such a call's result as a condition). False when unknown.
bool ReturnsBool(const MetadataReader& md, uint32_t call_token);

// Whether a field token (FieldDef or MemberRef of `md`) names a bool field. False when unknown.
bool IsBoolField(const MetadataReader& md, uint32_t field_token);

// What `md` says is bool in the method `method_token` (a MethodDef) with body `body`, for
// il::FindValueConditions: call results and fields by token, the method's arguments (its signature) and
// locals (its StandAloneSig). `md` must outlive the result.
il::BoolTypes BoolTypesOf(const MetadataReader& md, uint32_t method_token, const il::MethodBody& body);

// Sorts sites by (token, IL offset, kind), the order the data file and the agent expect.
void SortSites(std::vector<ProbeSite>* sites);

// Every non-hidden sequence point of every method, sorted by (token, IL offset).
// A method whose sequence-point blob is malformed gets no sites (and is named in
// *skipped, if given).
std::vector<ProbeSite> CollectSites(const ModuleSymbols& symbols, std::vector<std::string>* skipped = nullptr);

}  // namespace dotcov
