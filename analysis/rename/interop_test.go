package rename

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

var interopFiles = map[string]string{
	"src/main/java/com/acme/Person.java": `package com.acme;

public class Person {
    private String name;
    private boolean active;
    public String getName() { return name; }
    public boolean isActive() { return active; }
    public void setActive(boolean active) { this.active = active; }
    public String getNick() { return name; }
    public void setNick(String n) { }
    public void setAge(int age) { }
}
`,
	"src/main/kotlin/app/Use.kt": `package app

import com.acme.Person

fun use(p: Person) {
    println(p.name)
    println(p.getName())
    println(p.isActive)
    println(p.nick)
}

fun write(p: Person) {
    p.isActive = true
    p.nick = "n"
    p.setAge(3)
}
`,
	"src/main/kotlin/com/acme/Shop.kt": `package com.acme

class Shop(var title: String) {
    var isOpen: Boolean = false
}

fun open(s: Shop) = s.title
`,
	"src/main/java/com/acme/UseShop.java": `package com.acme;

class UseShop {
    void run(Shop s) {
        s.setTitle(s.getTitle());
        s.setOpen(s.isOpen());
        ShopKt.open(s);
    }
}
`,
}

// editText renders edits as path:line:"new text", sorted.
func editText(edits []Edit) []string {
	var out []string
	for _, e := range edits {
		out = append(out, fmt.Sprintf("%s:%d:%s", e.Path[strings.LastIndexByte(e.Path, '/')+1:], e.Span.StartPoint.Line+1, e.NewText))
	}
	slices.Sort(out)
	return out
}

func renameAt(t *testing.T, s snapshot, path, needle, newName string) ([]Edit, error) {
	t.Helper()
	at := strings.Index(interopFiles[path], needle)
	if at < 0 {
		t.Fatalf("%q not in %s", needle, path)
	}
	return Rename(s, path, at, newName)
}

// Renaming a Java getter renames Kotlin's property reads after it, and a
// direct call by the method's own name.
func TestRenameJavaGetterEditsKotlinProperty(t *testing.T) {
	s := newSnapshot(t, interopFiles)
	edits, err := renameAt(t, s, "src/main/java/com/acme/Person.java", "getName()", "getFullName")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Person.java:6:getFullName", "Use.kt:6:fullName", "Use.kt:7:getFullName"}
	if got := editText(edits); !slices.Equal(got, want) {
		t.Errorf("edits = %v, want %v", got, want)
	}
}

// A rename that would leave a Kotlin use with no name to bind to is
// refused, saying why, and edits nothing.
func TestRenameJavaAccessorRefusals(t *testing.T) {
	s := newSnapshot(t, interopFiles)
	for _, c := range []struct{ needle, newName, why string }{
		{"getName()", "fullName", "not a getter name"},          // Kotlin's p.name would have to become a call
		{"isActive()", "isEnabled", "lose its getter"},          // Kotlin's p.isActive = true needs the setter to follow
		{"setNick(", "setAlias", "needs the setter and getter"}, // a setter alone
	} {
		_, err := renameAt(t, s, "src/main/java/com/acme/Person.java", c.needle, c.newName)
		var refused *Error
		if !errors.As(err, &refused) || !refused.Conflict || !strings.Contains(refused.Msg, c.why) {
			t.Errorf("rename %s to %s = %v, want a refusal saying %q", c.needle, c.newName, err, c.why)
		}
	}
	// A setter Kotlin calls by its own name renames like any method.
	edits, err := renameAt(t, s, "src/main/java/com/acme/Person.java", "setAge(", "setYears")
	if want := []string{"Person.java:11:setYears", "Use.kt:15:setYears"}; err != nil || !slices.Equal(editText(edits), want) {
		t.Errorf("rename setAge = %v, %v; want %v", editText(edits), err, want)
	}
}

// Renaming a Kotlin property renames Java's getter and setter calls after
// it (isOpen → getOpen once it loses its is-prefix); a top-level function
// keeps its name in Java's facade call.
func TestRenameKotlinPropertyEditsJavaAccessors(t *testing.T) {
	s := newSnapshot(t, interopFiles)
	edits, err := renameAt(t, s, "src/main/kotlin/com/acme/Shop.kt", "title", "label")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Shop.kt:3:label", "Shop.kt:7:label", "UseShop.java:5:getLabel", "UseShop.java:5:setLabel"}
	if got := editText(edits); !slices.Equal(got, want) {
		t.Errorf("edits = %v, want %v", got, want)
	}
	edits, err = renameAt(t, s, "src/main/kotlin/com/acme/Shop.kt", "isOpen", "open")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"Shop.kt:4:open", "UseShop.java:6:getOpen", "UseShop.java:6:setOpen"}
	if got := editText(edits); !slices.Equal(got, want) {
		t.Errorf("edits = %v, want %v", got, want)
	}
	edits, err = renameAt(t, s, "src/main/kotlin/com/acme/Shop.kt", "open(s", "openShop")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"Shop.kt:7:openShop", "UseShop.java:7:openShop"}
	if got := editText(edits); !slices.Equal(got, want) {
		t.Errorf("edits = %v, want %v", got, want)
	}
}

// Renamed where the other language uses it, the declaration takes the new
// name in its own language's form: Kotlin's p.nick renamed alias is Java's
// getAlias, Java's getTitle() renamed getLabel is Kotlin's label.
func TestRenameFromTheOtherLanguage(t *testing.T) {
	s := newSnapshot(t, interopFiles)
	edits, err := renameAt(t, s, "src/main/kotlin/app/Use.kt", "name)", "fullName")
	if want := []string{"Person.java:6:getFullName", "Use.kt:6:fullName", "Use.kt:7:getFullName"}; err != nil || !slices.Equal(editText(edits), want) {
		t.Errorf("rename p.name = %v, %v; want %v", editText(edits), err, want)
	}
	edits, err = renameAt(t, s, "src/main/java/com/acme/UseShop.java", "getTitle", "getLabel")
	if want := []string{"Shop.kt:3:label", "Shop.kt:7:label", "UseShop.java:5:getLabel", "UseShop.java:5:setLabel"}; err != nil || !slices.Equal(editText(edits), want) {
		t.Errorf("rename getTitle() = %v, %v; want %v", editText(edits), err, want)
	}
	var refused *Error
	if _, err := renameAt(t, s, "src/main/java/com/acme/UseShop.java", "getTitle", "label"); !errors.As(err, &refused) || !refused.Conflict {
		t.Errorf("rename getTitle() to label = %v, want a refusal", err)
	}
}
