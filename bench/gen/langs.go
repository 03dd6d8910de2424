package main

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// pair is a line that opens a block and the line that closes it ("" when the
// language closes blocks by dedenting).
type pair struct{ open, close string }

// comments says how a language writes a comment: a line comment prefix
// ("//", "#", "--") and, optionally, a block comment.
type comments struct {
	line        string // "" when the language has no line comment (Markdown, JSON)
	blockOpen   string // "/*", "<!--" or ""
	blockClose  string
	trailingSep string // between a statement and a trailing comment
}

// lang is one language of the synthetic pull request.
type lang struct {
	name    string
	weight  int      // share of the changed files
	exts    []string // the first is the most common
	mode    string   // git file mode
	indent  string
	top     string                    // indentation of top-level blocks (JSON's are inside the outer object)
	path    func(r *rand.Rand) string // a path without extension
	pre     []string                  // file preamble (templates)
	opens   []pair                    // top-level blocks
	nests   []pair                    // blocks inside blocks
	body    []string                  // statements
	cm      comments
	decoys  []string // lines that mention a marker word outside a comment, or a todoList-like name
	legacy  string   // a unique line, with {u} standing for a unique id: lines that a modified file removes
	plainNo bool     // no comment syntax at all (JSON): never gets a placeholder
	prose   bool     // a document (Markdown): its placeholders are prose markers
}

var words = strings.Fields(`user account order invoice payment cache session token request response
handler router queue worker job event stream buffer config client server store record index query
filter batch retry limit timeout metric trace span audit report export schema table column field
value entry item node graph edge route policy rule role permission tenant region zone shard replica
backup snapshot ledger balance customer product price cart checkout shipment address email message
notice channel topic subscriber publisher offset cursor page window frame pixel image upload file
folder bucket object blob chunk block segment header body payload status state phase step task plan
build deploy release version tag branch commit diff patch merge review comment thread vote score
rank feed post profile avatar device sensor reading sample signal alert incident pager rotation
shift schedule calendar slot booking ticket seat venue ledger journal transfer wallet card charge
refund dispute coupon discount tax rate currency locale timezone clock counter gauge histogram
bucket lease lock mutex pool conn socket packet frame codec parser lexer token scope module package
crate library plugin hook middleware gateway proxy upstream backend frontend widget layout theme`)

var types = map[string][]string{
	"go":   {"string", "int", "int64", "bool", "error", "[]byte", "time.Duration", "map[string]int", "*Config", "[]string"},
	"ts":   {"string", "number", "boolean", "string[]", "Record<string, number>", "Promise<void>", "Date", "unknown"},
	"rust": {"String", "u64", "usize", "bool", "Vec<u8>", "Option<String>", "&str", "Result<(), Error>", "HashMap<String, u32>"},
	"java": {"String", "int", "long", "boolean", "List<String>", "Map<String, Integer>", "Optional<String>", "Instant"},
	"c":    {"int", "size_t", "uint32_t", "char *", "const char *", "bool", "uint8_t *", "struct buf *"},
	"sql":  {"BIGINT", "INTEGER", "TEXT", "VARCHAR(255)", "TIMESTAMPTZ", "BOOLEAN", "NUMERIC(12, 2)", "JSONB", "UUID"},
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func join(r *rand.Rand, sep string, min, max int, f func(string, int) string) string {
	n := min + r.IntN(max-min+1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f(pick(r, words), i))
	}
	return b.String()
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func camel(r *rand.Rand) string {
	return join(r, "", 1, 3, func(w string, i int) string {
		if i == 0 {
			return w
		}
		return title(w)
	})
}

func pascal(r *rand.Rand) string {
	return join(r, "", 1, 3, func(w string, _ int) string { return title(w) })
}

func snake(r *rand.Rand) string {
	return join(r, "_", 1, 3, func(w string, _ int) string { return w })
}

func kebab(r *rand.Rand) string {
	return join(r, "-", 1, 2, func(w string, _ int) string { return w })
}

func phrase(r *rand.Rand, min, max int) string {
	return join(r, " ", min, max, func(w string, _ int) string { return w })
}

var templateKeys = map[string]bool{"id": true, "Id": true, "snake": true, "kebab": true, "w": true, "n": true, "phrase": true, "Phrase": true, "t": true, "u": true}

// expand fills a template: {id} camelCase, {Id} PascalCase, {snake},
// {kebab}, {w} a word, {n} a number, {phrase}, {Phrase} (capitalised), {t} a
// type of the language, {u} the unique id. Other braces are kept.
func expand(r *rand.Rand, l *lang, tmpl, unique string) string {
	if strings.IndexByte(tmpl, '{') < 0 {
		return tmpl
	}
	var b strings.Builder
	b.Grow(len(tmpl) + 32)
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		key := tmpl[i+1 : i+j]
		if !templateKeys[key] {
			// Not a key (a literal brace, "${{id}}", "{}"): keep the
			// brace and go on after it.
			b.WriteByte('{')
			tmpl = tmpl[i+1:]
			continue
		}
		switch key {
		case "id":
			b.WriteString(camel(r))
		case "Id":
			b.WriteString(pascal(r))
		case "snake":
			b.WriteString(snake(r))
		case "kebab":
			b.WriteString(kebab(r))
		case "w":
			b.WriteString(pick(r, words))
		case "n":
			b.WriteString(strconv.Itoa(r.IntN(1000)))
		case "phrase":
			b.WriteString(phrase(r, 2, 7))
		case "Phrase":
			b.WriteString(title(phrase(r, 3, 9)))
		case "t":
			if ts := types[l.name]; len(ts) > 0 {
				b.WriteString(pick(r, ts))
			} else {
				b.WriteString(pick(r, types["ts"]))
			}
		case "u":
			b.WriteString(unique)
		}
		tmpl = tmpl[i+j+1:]
	}
}

var slashComments = comments{line: "//", blockOpen: "/*", blockClose: "*/", trailingSep: " "}
var hashComments = comments{line: "#", trailingSep: "  "}

var langs = []*lang{
	{
		name: "go", weight: 18, exts: []string{".go"}, mode: "100644", indent: "\t",
		path: func(r *rand.Rand) string {
			return "services/" + pick(r, words) + "/internal/" + pick(r, words) + "/" + snake(r)
		},
		pre: []string{"package {w}", "", "import (", "\t\"context\"", "\t\"errors\"", "\t\"fmt\"", "\t\"strings\"", "\t\"time\"", ")", ""},
		opens: []pair{
			{"func {Id}(ctx context.Context, {id} *{Id}) error {", "}"},
			{"func (s *{Id}) {Id}({id} string, {id} {t}) ({t}, error) {", "}"},
			{"func new{Id}({id} {t}) *{Id} {", "}"},
			{"type {Id} struct {", "}"},
			{"var (", ")"},
		},
		nests: []pair{
			{"if err := s.{id}.{Id}(ctx, {id}); err != nil {", "}"},
			{"for _, {id} := range {id}.{Id} {", "}"},
			{"if {id} == nil || len({id}.{Id}) == 0 {", "}"},
			{"switch {id}.{Id} {", "}"},
			{"select {", "}"},
		},
		body: []string{
			"{id} := {id}.{Id}({id})",
			"return fmt.Errorf(\"{phrase}: %w\", err)",
			"{id}, err := s.{id}.{Id}(ctx, {id})",
			"s.{id}[{id}] = append(s.{id}[{id}], {id})",
			"s.log.Debug(\"{phrase}\", \"{snake}\", {id}, \"{snake}\", len({id}))",
			"{id} = strings.TrimSpace({id})",
			"return nil",
			"defer {id}.Close()",
			"{id}.{Id} = time.Duration({n}) * time.Millisecond",
			"// {Phrase}.",
			"{Id} {t} `json:\"{snake},omitempty\"`",
			"if errors.Is(err, Err{Id}) {",
			"return {id}, nil",
			"{id}++",
			"ctx, cancel := context.WithTimeout(ctx, {n}*time.Second)",
		},
		cm: slashComments,
		decoys: []string{
			"todoList := make([]string, 0, {n})",
			"s.todoList = append(s.todoList, {id})",
			"label := \"TODO\"",
			"const {id}Mask = \"XXX-XX-XXXX\"",
			"fmt.Println(\"FIXME and HACK are words the linter looks for\")",
			"return \"TBD\", nil",
		},
		legacy: "legacy{u}({id}, {n})",
	},
	{
		name: "ts", weight: 14, exts: []string{".ts", ".tsx"}, mode: "100644", indent: "  ",
		path: func(r *rand.Rand) string {
			return "web/src/" + pick(r, words) + "/" + pick(r, words) + "/" + pascal(r)
		},
		pre: []string{"import { {Id}, {Id} } from \"../{w}/{kebab}\";", "import type { {Id} } from \"./types\";", ""},
		opens: []pair{
			{"export function {id}({id}: {t}, {id}: {Id}): {t} {", "}"},
			{"export class {Id} implements {Id} {", "}"},
			{"export const {id} = async ({id}: {Id}): Promise<{Id}> => {", "};"},
			{"export interface {Id} {", "}"},
		},
		nests: []pair{
			{"if (!{id} || {id}.length === 0) {", "}"},
			{"for (const {id} of {id}.{id}) {", "}"},
			{"try {", "} catch (err) {"},
			{"return {id}.map(({id}) => {", "});"},
		},
		body: []string{
			"const {id} = await {id}.{id}({id});",
			"this.{id}.set({id}, {id});",
			"{id}: {t};",
			"return { ...{id}, {id}: {id}.{id} };",
			"throw new Error(`{phrase}: ${{id}}`);",
			"const {id} = useMemo(() => {id}({id}), [{id}]);",
			"// {Phrase}.",
			"{id} += {n};",
			"return this.{id};",
			"logger.info(\"{phrase}\", { {id} });",
			"readonly {id}?: {t};",
		},
		cm: slashComments,
		decoys: []string{
			"const todoList: string[] = [];",
			"setTodoList([...todoList, {id}]);",
			"setStatus(\"TODO\");",
			"const placeholder = \"XXX-XXX-XXXX\";",
			"label: \"FIXME\",",
		},
		legacy: "legacy{u}({id});",
	},
	{
		name: "js", weight: 6, exts: []string{".js", ".mjs"}, mode: "100644", indent: "  ",
		path: func(r *rand.Rand) string {
			return "web/legacy/" + pick(r, words) + "/" + kebab(r)
		},
		pre: []string{"'use strict';", "", "const { {id}, {id} } = require('./{kebab}');", ""},
		opens: []pair{
			{"function {id}({id}, {id}) {", "}"},
			{"module.exports.{id} = async function ({id}) {", "};"},
			{"const {id} = {", "};"},
		},
		nests: []pair{
			{"if ({id} === undefined) {", "}"},
			{"for (let i = 0; i < {id}.length; i++) {", "}"},
			{"{id}.forEach(({id}) => {", "});"},
		},
		body: []string{
			"const {id} = {id}.{id}({id});",
			"{id}: {n},",
			"return callback(null, {id});",
			"// {Phrase}.",
			"console.log('{phrase}', {id});",
			"{id}.push({ {id}: {id}, {id}: {n} });",
			"return Promise.resolve({id});",
		},
		cm: slashComments,
		decoys: []string{
			"var todoList = [];",
			"todoList.push({id});",
			"el.textContent = 'TODO';",
			"const mask = 'XXX-XXX';",
		},
		legacy: "legacy{u}({id});",
	},
	{
		name: "py", weight: 14, exts: []string{".py"}, mode: "100644", indent: "    ",
		path: func(r *rand.Rand) string {
			return "py/" + pick(r, words) + "/" + pick(r, words) + "/" + snake(r)
		},
		pre: []string{"from __future__ import annotations", "", "import logging", "from typing import Any", "", "from .{snake} import {Id}", "", "log = logging.getLogger(__name__)", ""},
		opens: []pair{
			{"def {snake}({snake}: {Id}, {snake}: int = {n}) -> {Id}:", ""},
			{"class {Id}({Id}):", ""},
			{"async def {snake}(self, {snake}: str) -> None:", ""},
		},
		nests: []pair{
			{"if not {snake} or {snake} is None:", ""},
			{"for {snake} in self.{snake}:", ""},
			{"with open({snake}, \"rb\") as fh:", ""},
			{"try:", ""},
		},
		body: []string{
			"{snake} = self.{snake}.get({snake}, {n})",
			"return {Id}({snake}={snake}, {snake}={snake})",
			"log.debug(\"{phrase} %s\", {snake})",
			"raise ValueError(f\"{phrase}: {{snake}}\")",
			"self.{snake}.append({snake})",
			"# {Phrase}.",
			"{snake}: dict[str, Any] = {}",
			"yield {snake}",
			"return self.{snake}",
			"\"\"\"{Phrase}.\"\"\"",
		},
		cm: hashComments,
		decoys: []string{
			"todo_list = []",
			"self.todo_list.append({snake})",
			"status = \"TODO\"",
			"mask = \"XXX-XX-XXXX\"",
		},
		legacy: "legacy_{u}({snake})",
	},
	{
		name: "rust", weight: 7, exts: []string{".rs"}, mode: "100644", indent: "    ",
		path: func(r *rand.Rand) string {
			return "crates/" + pick(r, words) + "-" + pick(r, words) + "/src/" + snake(r)
		},
		pre: []string{"use std::collections::HashMap;", "use std::sync::Arc;", "", "use crate::{snake}::{Id};", ""},
		opens: []pair{
			{"pub fn {snake}({snake}: {t}, {snake}: &{Id}) -> Result<{Id}, Error> {", "}"},
			{"impl {Id} for {Id} {", "}"},
			{"pub struct {Id} {", "}"},
			{"#[derive(Debug, Clone, PartialEq)]", ""},
		},
		nests: []pair{
			{"if let Some({snake}) = self.{snake}.get(&{snake}) {", "}"},
			{"for {snake} in {snake}.iter() {", "}"},
			{"match {snake} {", "}"},
		},
		body: []string{
			"let {snake} = self.{snake}.{snake}(&{snake})?;",
			"pub {snake}: {t},",
			"return Ok({Id}::new({snake}));",
			"{snake}.insert({snake}.clone(), {n});",
			"// {Phrase}.",
			"tracing::debug!(%{snake}, \"{phrase}\");",
			"Err(Error::{Id}) => return Err(e.into()),",
			"Ok(())",
		},
		cm: slashComments,
		decoys: []string{
			"let todo_list: Vec<String> = Vec::new();",
			"const STATUS_LABEL: &str = \"TODO\";",
			"let mask = \"XXX-XX\";",
		},
		legacy: "legacy_{u}(&{snake});",
	},
	{
		name: "java", weight: 9, exts: []string{".java"}, mode: "100644", indent: "    ",
		path: func(r *rand.Rand) string {
			return "java/" + pick(r, words) + "/src/main/java/com/acme/" + pick(r, words) + "/" + pascal(r)
		},
		pre: []string{"package com.acme.{w};", "", "import java.util.List;", "import java.util.Map;", "import java.util.Optional;", ""},
		opens: []pair{
			{"public {t} {id}({t} {id}, {t} {id}) {", "}"},
			{"public final class {Id} implements {Id} {", "}"},
			{"private static {t} {id}({Id} {id}) throws {Id}Exception {", "}"},
		},
		nests: []pair{
			{"if ({id} == null || {id}.isEmpty()) {", "}"},
			{"for ({Id} {id} : {id}.{id}()) {", "}"},
			{"try ({Id} {id} = {id}.open()) {", "}"},
		},
		body: []string{
			"{t} {id} = this.{id}.{id}({id});",
			"return Optional.ofNullable({id});",
			"private final {t} {id};",
			"log.debug(\"{phrase} {}\", {id});",
			"throw new IllegalStateException(\"{phrase}\");",
			"// {Phrase}.",
			"{id}.put({id}, {n});",
			"return {id};",
		},
		cm: slashComments,
		decoys: []string{
			"private final List<String> todoList = new ArrayList<>();",
			"String mask = \"XXX-XX-XXXX\";",
			"item.setStatus(\"TODO\");",
		},
		legacy: "legacy{u}({id});",
	},
	{
		name: "c", weight: 6, exts: []string{".c", ".h"}, mode: "100644", indent: "    ",
		path: func(r *rand.Rand) string {
			return "native/" + pick(r, words) + "/src/" + snake(r)
		},
		pre: []string{"#include <stdint.h>", "#include <stdlib.h>", "#include <string.h>", "", "#include \"{snake}.h\"", ""},
		opens: []pair{
			{"static int {snake}(struct {snake} *{snake}, {t} {snake})", ""},
			{"int {snake}_{snake}(const struct {snake} *{snake}) {", "}"},
			{"struct {snake} {", "};"},
		},
		nests: []pair{
			{"if ({snake} == NULL) {", "}"},
			{"for (size_t i = 0; i < {snake}->len; i++) {", "}"},
			{"while ({snake}-- > 0) {", "}"},
		},
		body: []string{
			"{t} {snake} = {snake}->{snake};",
			"return -1;",
			"memcpy({snake}, {snake}->buf, {snake}->len);",
			"{snake}->{snake} += {n};",
			"/* {Phrase}. */",
			"free({snake});",
			"{t} {snake};",
			"goto out;",
		},
		cm: slashComments,
		decoys: []string{
			"static const char *todo_label = \"TODO\";",
			"char mask[] = \"XXX-XX\";",
		},
		legacy: "legacy_{u}({snake});",
	},
	{
		name: "sh", weight: 5, exts: []string{".sh"}, mode: "100755", indent: "  ",
		path: func(r *rand.Rand) string {
			return "scripts/" + pick(r, words) + "/" + kebab(r)
		},
		pre: []string{"#!/usr/bin/env bash", "set -euo pipefail", ""},
		opens: []pair{
			{"{snake}() {", "}"},
			{"if [[ -n \"${{snake}:-}\" ]]; then", "fi"},
		},
		nests: []pair{
			{"for f in \"${{snake}[@]}\"; do", "done"},
			{"case \"$1\" in", "esac"},
		},
		body: []string{
			"local {snake}=\"$1\"",
			"echo \"{phrase}: ${snake}\" >&2",
			"{snake}=\"$({snake} --{kebab} \"${snake}\")\"",
			"mkdir -p \"${snake}/{w}\"",
			"return 1",
			"# {Phrase}.",
			"curl -fsS \"${{snake}}/{w}\" -o \"$tmp/{w}.json\"",
		},
		cm: hashComments,
		decoys: []string{
			"todo_list=()",
			"echo \"TODO list is empty\"",
		},
		legacy: "legacy_{u} \"${snake}\"",
	},
	{
		name: "yaml", weight: 7, exts: []string{".yaml", ".yml"}, mode: "100644", indent: "  ",
		path: func(r *rand.Rand) string {
			return "deploy/" + pick(r, []string{"dev", "staging", "prod"}) + "/" + pick(r, words) + "/" + kebab(r)
		},
		pre: []string{"apiVersion: apps/v1", "kind: Deployment"},
		opens: []pair{
			{"{snake}:", ""},
			{"- name: {kebab}", ""},
		},
		nests: []pair{
			{"{snake}:", ""},
			{"env:", ""},
		},
		body: []string{
			"{snake}: {n}",
			"{snake}: \"{kebab}\"",
			"{snake}: true",
			"- {kebab}",
			"image: registry.local/{kebab}:1.{n}.0",
			"# {Phrase}.",
		},
		cm: hashComments,
		decoys: []string{
			"todo_list: []",
			"label: \"TODO\"",
		},
		legacy: "legacy_{u}: {n}",
	},
	{
		name: "sql", weight: 4, exts: []string{".sql"}, mode: "100644", indent: "  ",
		path: func(r *rand.Rand) string {
			return "db/migrations/" + pick(r, words) + "/" + strconv.Itoa(1000+r.IntN(9000)) + "_" + snake(r)
		},
		pre: []string{"BEGIN;", ""},
		opens: []pair{
			{"CREATE TABLE IF NOT EXISTS {snake} (", ");"},
			{"INSERT INTO {snake} ({snake}, {snake}) VALUES", ";"},
			{"CREATE INDEX {snake}_idx ON {snake} (", ");"},
		},
		body: []string{
			"{snake} {t} NOT NULL,",
			"{snake} {t} DEFAULT {n},",
			"({n}, '{kebab}'),",
			"{snake}",
			"-- {Phrase}.",
		},
		cm: comments{line: "--", trailingSep: " "},
		decoys: []string{
			"INSERT INTO task_states (name) VALUES ('TODO');",
			"todo_list_id BIGINT REFERENCES todo_list (id),",
		},
		legacy: "legacy_{u} {t},",
	},
	{
		name: "md", weight: 6, exts: []string{".md"}, mode: "100644", indent: "",
		path: func(r *rand.Rand) string {
			return "docs/" + pick(r, words) + "/" + kebab(r)
		},
		pre: []string{"# {Phrase}", ""},
		opens: []pair{
			{"## {Phrase}", ""},
			{"### {Phrase}", ""},
		},
		body: []string{
			"{Phrase}, {phrase} and {phrase}.",
			"- `{snake}`: {phrase}.",
			"{Phrase} (see [{kebab}](../{w}/{kebab}.md)).",
			"1. {Phrase}.",
			"",
		},
		cm:    comments{blockOpen: "<!--", blockClose: "-->"},
		prose: true,
		decoys: []string{
			"The TODO app keeps every item in the todoList table.",
			"- `todoList`: {phrase}.",
		},
		legacy: "Legacy note {u}: {phrase}.",
	},
	{
		name: "json", weight: 4, exts: []string{".json"}, mode: "100644", indent: "  ", top: "  ",
		path: func(r *rand.Rand) string {
			return "config/" + pick(r, words) + "/" + kebab(r)
		},
		pre: []string{"{", "  \"version\": {n},"},
		opens: []pair{
			{"\"{snake}\": {", "},"},
			{"\"{snake}\": [", "],"},
		},
		body: []string{
			"\"{snake}\": {n},",
			"\"{snake}\": \"{kebab}\",",
			"\"{snake}\": true,",
			"\"{kebab}\",",
		},
		decoys: []string{
			"\"status\": \"TODO\",",
			"\"todoList\": [],",
		},
		legacy:  "\"legacy_{u}\": {n},",
		plainNo: true,
	},
}

// Ordinary lines never look like a stub either: the plugin's
// code-stub-return rule flags `return null;`, `return None` at the end of a
// line and the like, so no body template is one, and the planted comments
// stay the only placeholders.

var markerWords = []string{"TODO", "TODO", "TODO", "TODO", "TODO", "FIXME", "FIXME", "XXX", "HACK", "TBD"}

// placeholderLine is a comment line carrying a marker word; ticket makes it
// unique. Exactly one marker word per line, so the gate reports one finding.
func placeholderLine(r *rand.Rand, l *lang, indent, ticket string) string {
	w := pick(r, markerWords)
	text := w + "(" + ticket + "): " + phrase(r, 3, 8)
	if r.IntN(3) == 0 {
		text = w + " " + ticket + " " + phrase(r, 2, 6)
	}
	cm := l.cm
	if l.prose {
		// In a document only a TODO: or FIXME: starting the line (bare or
		// in <!-- -->) is a finding: the gate's prose rule.
		if w != "FIXME" {
			w = "TODO"
		}
		text = w + ": " + ticket + " " + phrase(r, 2, 6)
		if r.IntN(2) == 0 {
			return indent + cm.blockOpen + " " + text + " " + cm.blockClose
		}
		return indent + text
	}
	switch {
	case cm.line == "":
		return indent + cm.blockOpen + " " + text + " " + cm.blockClose
	case cm.blockOpen != "" && r.IntN(6) == 0:
		return indent + cm.blockOpen + " " + text + " " + cm.blockClose
	case r.IntN(4) == 0:
		stmt := expand(r, l, pick(r, l.body), "")
		// A statement that is itself a comment would put the marker
		// after a second marker; keep it simple: only plain statements.
		if !strings.Contains(stmt, cm.line) && (cm.blockOpen == "" || !strings.Contains(stmt, cm.blockOpen)) {
			return indent + stmt + cm.trailingSep + cm.line + " " + text
		}
	}
	return indent + cm.line + " " + text
}
