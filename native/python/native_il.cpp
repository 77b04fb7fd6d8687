#include "native_il.h"

#include <pybind11/stl.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <tuple>

#include "dotcov/branch_facts.h"
#include "dotcov/il_method.h"
#include "dotcov/il_rewriter.h"
#include "dotcov/rewrite_check.h"

namespace py = pybind11;
using namespace dotcov;

namespace {

Bytes AsBytes(const std::string& s) { return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

py::dict RewriteCheckPath(const std::string& path, const std::vector<std::string>& probe_styles) {
  unsigned styles = 0;
  for (const std::string& name : probe_styles) {
    if (name == "inline") styles |= kInlineProbes;
    else if (name == "call") styles |= kCallProbes;
    else if (name == "atomic") styles |= kAtomicProbes;
    else throw py::value_error("unknown probe style '" + name + "' (inline, call, atomic)");
  }
  if (styles == 0) throw py::value_error("no probe style to check");
  RewriteCheckResult r;
  {
    py::gil_scoped_release release;
    r = RewriteCheckFile(path, styles);
  }
  if (r.status == RewriteCheckStatus::kError) throw py::value_error(path + ": " + r.error);
  py::dict out;
  out["managed"] = r.status == RewriteCheckStatus::kChecked;
  out["methods"] = r.methods_checked;
  out["branches"] = r.branches_checked;
  py::list failures;
  for (const auto& f : r.failures) failures.append(py::make_tuple(f.method_token, f.reason));
  out["failures"] = failures;
  return out;
}

il::MethodBody DecodeOrRaise(const std::string& body) {
  il::MethodBody m;
  std::string error;
  if (!il::MethodBody::Decode(AsBytes(body), &m, &error)) throw py::value_error(error);
  return m;
}

py::dict IlDecode(const py::bytes& data) {
  il::MethodBody m = DecodeOrRaise(data);
  py::dict out;
  out["fat"] = m.fat_header();
  out["flags"] = m.header_flags();
  out["max_stack"] = m.max_stack();
  out["code_size"] = m.code_size();
  out["local_var_sig_token"] = m.local_var_sig_token();
  out["init_locals"] = m.init_locals();
  py::list instructions;
  for (const auto& ins : m.instructions()) {
    py::object operand;
    if (ins.opcode == il::op::kSwitch) {
      py::list targets;
      for (int32_t t : ins.switch_targets) targets.append(static_cast<uint32_t>(t));
      operand = targets;
    } else {
      operand = py::int_(ins.operand);
    }
    instructions.append(py::make_tuple(ins.offset, ins.opcode, operand));
  }
  out["instructions"] = instructions;
  py::list clauses;
  for (const auto& c : m.clauses())
    clauses.append(py::make_tuple(c.flags, c.try_offset, c.try_length, c.handler_offset, c.handler_length,
                                  c.class_token_or_filter_offset));
  out["clauses"] = clauses;
  py::list sections;
  for (const auto& s : m.eh_sections()) sections.append(py::make_tuple(s.fat, s.clause_count));
  out["eh_sections"] = sections;
  return out;
}

using BranchProbeTuple = std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>;

using ValueProbeTuple = std::tuple<uint32_t, uint32_t, uint32_t>;

using OperandProbeTuple = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;

py::object IlInsertProbes(const py::bytes& data, const std::vector<std::pair<uint32_t, uint32_t>>& probes,
                          uint32_t helper_token, const std::vector<BranchProbeTuple>& branch_probes,
                          const std::vector<ValueProbeTuple>& value_probes, uint64_t counters_base, bool il_map,
                          const std::vector<OperandProbeTuple>& operand_probes) {
  std::string body = data;
  std::vector<il::BranchProbe> branches;
  for (const auto& [offset, fall_through, targets] : branch_probes) branches.push_back({offset, fall_through, targets});
  for (const auto& [offset, false_slot, true_slot] : value_probes)
    branches.push_back({offset, false_slot, {true_slot}, /*value=*/true});
  for (const auto& [offset, skipped, false_slot, true_slot] : operand_probes)
    branches.push_back({offset, skipped, {false_slot, true_slot}, false, /*operand=*/true});
  std::vector<uint8_t> out;
  std::vector<il::OffsetMapEntry> map;
  std::string error;
  if (!il::InsertProbes(AsBytes(body), probes, branches, il::ProbeStyle{helper_token, counters_base}, &out, &error,
                        &map))
    throw py::value_error(error);
  py::bytes rewritten(reinterpret_cast<const char*>(out.data()), out.size());
  if (!il_map) return rewritten;
  py::list entries;
  for (const auto& e : map) entries.append(py::make_tuple(e.old_offset, e.new_offset));
  return py::make_tuple(rewritten, entries);
}

uint32_t IlTranslateToOriginal(const std::vector<std::pair<uint32_t, uint32_t>>& il_map, uint32_t new_offset) {
  std::vector<il::OffsetMapEntry> map;
  for (const auto& [old_offset, new_off] : il_map) map.push_back({old_offset, new_off});
  return il::TranslateToOriginal(map, new_offset);
}

py::list IlFindBranches(const py::bytes& data) {
  il::MethodBody m = DecodeOrRaise(data);
  py::list out;
  for (const il::BranchSite& b : il::FindBranches(m)) out.append(py::make_tuple(b.il_offset, b.target_count));
  return out;
}

// Type knowledge for the finders: which locals and arguments are bool (no call or field is).
il::BoolTypes TypesOf(const std::vector<bool>& bool_locals, const std::vector<bool>& bool_arguments) {
  il::BoolTypes types;
  types.locals = bool_locals;
  types.arguments = bool_arguments;
  return types;
}

py::list IlFindValueConditions(const py::bytes& data, const std::vector<bool>& bool_locals,
                               const std::vector<bool>& bool_arguments) {
  il::MethodBody m = DecodeOrRaise(data);
  py::list out;
  for (uint32_t offset : il::FindValueConditions(m, TypesOf(bool_locals, bool_arguments))) out.append(offset);
  return out;
}

py::list IlFindShortCircuitOperands(const py::bytes& data, const std::vector<bool>& bool_locals,
                                    const std::vector<bool>& bool_arguments, const std::vector<bool>& byref_locals,
                                    const std::vector<bool>& byref_arguments) {
  il::MethodBody m = DecodeOrRaise(data);
  il::BoolTypes types = TypesOf(bool_locals, bool_arguments);
  types.byref_locals = byref_locals;
  types.byref_arguments = byref_arguments;
  py::list out;
  for (uint32_t offset : il::FindShortCircuitOperands(m, types)) out.append(offset);
  return out;
}

void IlVerify(const py::bytes& data, int return_values, const std::map<uint32_t, std::pair<int, int>>& calls) {
  il::MethodBody m = DecodeOrRaise(data);
  il::VerifyOptions options;
  options.return_values = return_values;
  if (!calls.empty()) {
    options.call_resolver = [&calls](uint32_t token, int* pops, int* pushes) {
      auto it = calls.find(token);
      if (it == calls.end()) return false;
      *pops = it->second.first;
      *pushes = it->second.second;
      return true;
    };
  }
  std::string error;
  if (!il::Verify(m, &error, options)) throw py::value_error(error);
}


// The branch facts of each branch of one method (branch_facts.h): [(offset, opcode, recogniser index or -1,
// short_circuit_constants' dict or None, tests_zero_comparison)].
py::list IlBranchFacts(const py::bytes& data, bool is_move_next, std::optional<std::vector<int64_t>> hidden_offsets,
                       std::vector<int64_t> visible_offsets) {
  char* buffer = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &buffer, &size) != 0) throw py::error_already_set();
  il::MethodBody m;
  std::string error;
  if (!il::MethodBody::Decode(Bytes(reinterpret_cast<const uint8_t*>(buffer), static_cast<size_t>(size)), &m, &error))
    throw py::value_error(error);
  il::MethodContext context{is_move_next, std::move(hidden_offsets), std::move(visible_offsets)};
  py::list out;
  for (const il::BranchFacts& f : il::AnalyseBranches(m, context)) {
    py::object constants = py::none();
    if (f.has_short_circuit) {
      py::dict d;
      for (uint32_t kind : {f.true_kind, 3 - f.true_kind}) {
        py::list entering;
        for (const auto& [offset, k] : f.subtract[kind - 1]) entering.append(py::make_tuple(offset, k));
        d[py::int_(kind)] = entering;
      }
      constants = d;
    }
    out.append(py::make_tuple(f.offset, f.opcode, static_cast<int>(f.recogniser), constants,
                              f.tests_zero_comparison));
  }
  return out;
}

}  // namespace

void RegisterIl(py::module_& m) {
  m.def("rewrite_check", &RewriteCheckPath, py::arg("path"),
        py::arg("probe_styles") = std::vector<std::string>{"inline", "call", "atomic"},
        "Checks the IL rewriter on every method body of an assembly (probes at every legal offset, then also "
        "outcome probes on every conditional branch and switch, in each of probe_styles: 'inline', 'call', 'atomic'; each "
        "rewrite's IL offset map checked too): dict(managed, methods, branches, failures=[(token, reason)]), "
        "branches = branches instrumented in passing methods (once, whatever the number of styles). managed is "
        "False (and methods 0) for a file that is not a managed PE image; raises ValueError when the file cannot "
        "be read or its headers/metadata are broken, or a style is unknown.");
  m.def("il_decode", &IlDecode, py::arg("body"),
        "Decodes a method body: header fields, instructions [(offset, opcode, operand or switch targets)] (branch "
        "operands are absolute targets), clauses [(flags, try_offset, try_length, handler_offset, handler_length, "
        "class_token_or_filter_offset)], eh_sections [(fat, count)]. Raises ValueError.");
  m.def("il_insert_probes", &IlInsertProbes, py::arg("body"), py::arg("probes"), py::arg("helper_token"),
        py::arg("branch_probes") = std::vector<BranchProbeTuple>{},
        py::arg("value_probes") = std::vector<ValueProbeTuple>{}, py::arg("counters_base") = 0,
        py::arg("il_map") = false, py::arg("operand_probes") = std::vector<OperandProbeTuple>{},
        "Inserts a counter probe before each (offset, slot), on the outcomes of each conditional branch / switch in "
        "branch_probes [(offset, fall_through_slot, [target slots])], and a value probe after each value in "
        "value_probes [(offset, false_slot, true_slot)], a short-circuit operand probe before each right operand in "
        "operand_probes [(offset, skipped_slot, false_slot, true_slot)]: `ldc.i4 slot; call helper_token` (counters_base 0), else "
        "the inline increment of the counter at counters_base + 8 * slot (il_rewriter.h ProbeStyle). Returns the "
        "new body, or (body, [(old_offset, new_offset)]) with il_map. Raises ValueError with the reason.");
  m.def("il_translate_to_original", &IlTranslateToOriginal, py::arg("il_map"), py::arg("new_offset"),
        "The runtime's reading of an IL offset map (il::TranslateToOriginal): the original offset of a rewritten "
        "one.");
  m.def("il_branch_facts", &IlBranchFacts, py::arg("body"), py::arg("is_move_next") = false,
        py::arg("hidden_offsets") = std::nullopt, py::arg("visible_offsets") = std::vector<int64_t>{},
        "The branch recognisers (branch_facts.h), for each conditional branch and switch: "
        "[(offset, opcode, index in analyse.RECOGNISER_NAMES of the first that claims it or -1, "
        "short_circuit_constants' {kind: [(offset, kind)]} or None, tests_zero_comparison)]. hidden_offsets / "
        "visible_offsets: the method's hidden / visible sequence points' IL offsets (lists; hidden None when "
        "unknown). Raises ValueError when the body does not decode.");
  m.def("il_find_branches", &IlFindBranches, py::arg("body"),
        "The conditional branches and switches that can get outcome probes: [(offset, target_count)]. Raises "
        "ValueError when the body does not decode.");
  m.def("il_find_value_conditions", &IlFindValueConditions, py::arg("body"),
        py::arg("bool_locals") = std::vector<bool>{}, py::arg("bool_arguments") = std::vector<bool>{},
        "The conditions computed into a value that get value probes: [IL offset of the instruction leaving the "
        "value]; bool_locals / bool_arguments say which are bool (by index). Raises ValueError when the body does "
        "not decode.");
  m.def("il_find_short_circuit_operands", &IlFindShortCircuitOperands, py::arg("body"),
        py::arg("bool_locals") = std::vector<bool>{}, py::arg("bool_arguments") = std::vector<bool>{},
        py::arg("byref_locals") = std::vector<bool>{}, py::arg("byref_arguments") = std::vector<bool>{},
        "The right operands of `or`/`and` short circuits that get operand probes (il::FindShortCircuitOperands): "
        "[IL offset of the operand's load]; byref_locals / byref_arguments say which are `ref bool` (by index). "
        "Raises ValueError when the body does not decode.");
  m.def("il_verify", &IlVerify, py::arg("body"), py::arg("return_values") = -1,
        py::arg("calls") = std::map<uint32_t, std::pair<int, int>>{},
        "Structural verification; calls maps call tokens to (pops, pushes). Raises ValueError with the reason.");
}
