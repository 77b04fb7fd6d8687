// What one module contributes to coverage: its identity for the data file, the
// facts the filters need, and its probe sites (every non-hidden sequence point).
#pragma once

#include <string>
#include <vector>

#include "dotcov/data_file.h"
#include "dotcov/module_filter.h"
#include "dotcov/module_info.h"

namespace dotcov {

// Filter facts from loaded symbols.
ModuleFacts FactsOf(const ModuleSymbols& symbols);

// The identity the data file records (MVID, PDB id, path).
ModuleIdentity IdentityOf(const ModuleSymbols& symbols);

// Every non-hidden sequence point of every method, sorted by (token, IL offset).
// A method whose sequence-point blob is malformed gets no sites (and is named in
// *skipped, if given).
std::vector<ProbeSite> CollectSites(const ModuleSymbols& symbols, std::vector<std::string>* skipped = nullptr);

}  // namespace dotcov
