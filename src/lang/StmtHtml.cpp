#include "lang/StmtHtml.h"

#include <sstream>

namespace dsl::lang {

namespace {

std::string escaped(const std::string &s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

/// The line without its indentation, its first word marked for the style sheet when it is a
/// statement keyword.
std::string marked(const std::string &line) {
    size_t start = line.find_first_not_of(' ');
    std::string text = start == std::string::npos ? "" : line.substr(start);
    static const char *const keywords[] = {"produce",    "consume",  "for", "parallel",
                                           "vectorized", "allocate", "let", "assert",
                                           "if",         "else",     "free"};
    for (const char *k : keywords) {
        std::string word(k);
        if (text.compare(0, word.size(), word) == 0 &&
            (text.size() == word.size() || text[word.size()] == ' ' || text[word.size()] == '(')) {
            return "<span class=\"k\">" + word + "</span>" + escaped(text.substr(word.size()));
        }
    }
    return escaped(text);
}

}  // namespace

std::string lowered_stmt_html(const std::string &stmt_text, const std::string &title) {
    std::ostringstream html;
    html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << escaped(title)
         << "</title>\n<style>\n"
         << "body { font-family: monospace; font-size: 13px; }\n"
         << "details > div { margin-left: 2ch; border-left: 1px solid #ccc; padding-left: 1ch; }\n"
         << "summary { cursor: pointer; }\n"
         << "div.s { white-space: pre-wrap; }\n"
         << ".k { color: #0451a5; font-weight: bold; }\n"
         << "</style></head><body>\n<h3>" << escaped(title) << "</h3>\n"
         << "<p>Click a line ending in { to fold or unfold its block.</p>\n";
    std::istringstream lines(stmt_text);
    std::string line;
    int open = 0;
    while (std::getline(lines, line)) {
        size_t start = line.find_first_not_of(' ');
        if (start == std::string::npos) continue;
        size_t end = line.find_last_not_of(' ');
        std::string text = line.substr(start, end - start + 1);
        if (text == "}") {
            if (open > 0) {
                html << "</div></details>\n";
                open--;
            }
            continue;
        }
        if (text.back() == '{') {
            html << "<details open><summary>" << marked(text) << "</summary><div>\n";
            open++;
            continue;
        }
        html << "<div class=\"s\">" << marked(text) << "</div>\n";
    }
    for (; open > 0; open--)
        html << "</div></details>\n";
    html << "</body></html>\n";
    return html.str();
}

}  // namespace dsl::lang
