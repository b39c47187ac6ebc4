package kast

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// The methods table serves exactly Kast's command catalog, every method is
// also registered under its alias, and the capabilities the family
// advertises come from registered rows.
func TestMethodsTableMatchesCatalog(t *testing.T) {
	ref := kastReference(t)
	catalog := func(rel string) map[string]json.RawMessage {
		raw, err := os.ReadFile(filepath.Join(ref, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Commands map[string]json.RawMessage `json:"commands"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		return c.Commands
	}
	v07 := catalog("cli-rs/resources/kast-skill/references/commands.json")
	later := catalog("later-0660b755/commands.json")
	k := New(host.New(host.Options{}), Options{})
	table := k.methods()
	var names []string
	for _, m := range table {
		names = append(names, m.Name())
		if _, ok := later[m.Name()]; !ok {
			t.Errorf("%s is registered but is not in Kast's later command catalog", m.Name())
		}
	}
	// The later catalog is a superset of v0.7's: every method of both.
	for _, c := range []map[string]json.RawMessage{v07, later} {
		for name := range c {
			if !slices.Contains(names, name) {
				t.Errorf("Kast's catalog has %s, which is not registered", name)
			}
		}
	}
	if len(v07) != 31 || len(later) != 43 || len(table) != 43 {
		t.Errorf("catalogs of %d and %d methods, table of %d: want 31, 43 and 43", len(v07), len(later), len(table))
	}

	reg := server.NewRegistry()
	k.Register(reg)
	for _, name := range names {
		if _, ok := reg.Lookup(kastAlias(name)); !ok {
			t.Errorf("%s has no %s alias", name, kastAlias(name))
		}
	}
	fam, _ := json.Marshal(reg.Families()["kast"])
	var family struct {
		Read     []string          `json:"readCapabilities"`
		Mutation []string          `json:"mutationCapabilities"`
		Methods  map[string]string `json:"methods"`
	}
	if err := json.Unmarshal(fam, &family); err != nil {
		t.Fatal(err)
	}
	read, mutation := advertised(table)
	if !slices.Equal(family.Read, read) || !slices.Equal(family.Mutation, mutation) {
		t.Errorf("experimental.kast capabilities %v %v differ from the table's %v %v", family.Read, family.Mutation, read, mutation)
	}
	if len(read) != 13 || len(mutation) != 5 {
		t.Errorf("the table advertises %d read and %d mutation capabilities, want Kast's 13 and 5: %v %v", len(read), len(mutation), read, mutation)
	}
	for method, alias := range family.Methods {
		if _, ok := reg.Lookup(method); !ok {
			t.Errorf("experimental.kast lists %s, which is not registered", method)
		}
		if _, ok := reg.Lookup(alias); !ok {
			t.Errorf("experimental.kast lists alias %s, which is not registered", alias)
		}
	}
	// experimental.kastMethods, where Kast's LSP adapter lists its methods:
	// every LSP name, each registered.
	var lspNames []string
	b, _ := json.Marshal(reg.Families()["kastMethods"])
	if err := json.Unmarshal(b, &lspNames); err != nil || len(lspNames) != len(table) {
		t.Errorf("experimental.kastMethods %s: want the %d LSP method names (%v)", b, len(table), err)
	}
	for _, name := range lspNames {
		if _, ok := reg.Lookup(name); !ok || !strings.HasPrefix(name, "kast/") {
			t.Errorf("experimental.kastMethods lists %s, which is not a registered kast/ method", name)
		}
	}
	if len(family.Methods) != len(table) {
		t.Errorf("experimental.kast lists %d methods, the table has %d", len(family.Methods), len(table))
	}
}

// kast's extensions stay out of Kast's catalog and capability object, and
// each is registered (with its alias) and advertised in
// experimental.kastExtensions; nothing is advertised there unregistered.
func TestExtensionsTable(t *testing.T) {
	ref := kastReference(t)
	raw, err := os.ReadFile(filepath.Join(ref, "later-0660b755", "commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var catalog struct {
		Commands map[string]json.RawMessage `json:"commands"`
	}
	if err := json.Unmarshal(raw, &catalog); err != nil {
		t.Fatal(err)
	}
	k := New(host.New(host.Options{}), Options{})
	ext := k.extensions()
	reg := server.NewRegistry()
	k.Register(reg)
	b, _ := json.Marshal(reg.Families()["kastExtensions"])
	var family struct {
		Methods      map[string]string `json:"methods"`
		Capabilities []string          `json:"capabilities"`
	}
	if err := json.Unmarshal(b, &family); err != nil {
		t.Fatal(err)
	}
	if len(family.Methods) != len(ext) || len(family.Capabilities) != len(ext) {
		t.Errorf("experimental.kastExtensions %s: want the %d extensions, each with a capability", b, len(ext))
	}
	for _, m := range ext {
		if _, ok := catalog.Commands[m.Name()]; ok {
			t.Errorf("%s is in Kast's catalog: it belongs in the methods table", m.Name())
		}
		if family.Methods[m.Name()] != kastAlias(m.Name()) {
			t.Errorf("%s is not advertised with its alias: %s", m.Name(), b)
		}
	}
	for name, alias := range family.Methods {
		for _, n := range []string{name, alias} {
			if _, ok := reg.Lookup(n); !ok {
				t.Errorf("experimental.kastExtensions lists %s, which is not registered", n)
			}
		}
	}
	read, mutation := advertised(ext)
	if len(read)+len(mutation) != 0 {
		t.Errorf("an extension advertises a Kast capability: %v %v", read, mutation)
	}
}
