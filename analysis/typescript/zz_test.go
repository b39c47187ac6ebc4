package typescript

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("ZZ_FILE"))
	f, err := Extract(context.Background(), "a.d.ts", src)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range f.Defs {
		fmt.Printf("def %d %q kind=%v cont=%d scope=%d vis=%q value=%q type=%q\n", i, d.Name, d.Kind, d.Container, d.Scope, d.Visibility, d.Value, d.TypeName)
	}
	for _, i := range f.Imports {
		fmt.Printf("imp %+v\n", i)
	}
	for _, s := range f.Supertypes {
		fmt.Printf("super %+v\n", s)
	}
}

func TestZZTree(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("ZZ_FILE"))
	tree, err := Syntax.Parse(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(tree.Root().String())
}
