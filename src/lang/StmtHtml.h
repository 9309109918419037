#pragma once
/// The lowered statement as an HTML page a person can read: the text of the IR printer, with
/// every block (a loop, a production, a branch, an allocation) foldable.

#include <string>

namespace dsl::lang {

/// `stmt_text` (the IR printer's output, blocks opened by a line ending in "{" and closed by a
/// line "}") as a standalone HTML page titled `title`.
std::string lowered_stmt_html(const std::string &stmt_text, const std::string &title);

}  // namespace dsl::lang
