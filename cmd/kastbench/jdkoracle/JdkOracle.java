// JdkOracle prints, for every name in the given Java files that javac binds
// to a declaration of the JDK (a module named java.* or jdk.*), where the
// name is and which source file of the JDK's src.zip declares it:
//
//   <file>:<line>:<col> <name> -> <module>/<package path>/<Outer>.java <declared name>
//
// (1-based; col in UTF-16 units; paths relative to ROOT). kastbench
// -accuracy jdk scores kast's definitions against it. Run with Java 17+:
//
//   java cmd/kastbench/jdkoracle/JdkOracle.java ROOT FILE.java... > P.jdk
//
// Names javac cannot bind (a dependency not on the class path) are left
// out; so are packages, locals and parameters.

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JdkOracle {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java JdkOracle.java ROOT FILE.java...");
            System.exit(2);
        }
        Path root = Path.of(args[0]).toAbsolutePath();
        List<File> files = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            files.add(new File(args[i]));
        }
        JavaCompiler jc = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = jc.getStandardFileManager(null, null, null);
        JavacTask task = (JavacTask) jc.getTask(null, fm, d -> {}, List.of("-proc:none"), null, fm.getJavaFileObjectsFromFiles(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        Trees trees = Trees.instance(task);
        Elements elements = task.getElements();
        SourcePositions pos = trees.getSourcePositions();
        for (CompilationUnitTree cu : units) {
            String rel = root.relativize(Path.of(cu.getSourceFile().toUri()).toAbsolutePath()).toString();
            CharSequence text = cu.getSourceFile().getCharContent(true);
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitIdentifier(IdentifierTree t, Void v) {
                    report(getCurrentPath(), t.getName().toString(), (int) pos.getStartPosition(cu, t));
                    return super.visitIdentifier(t, v);
                }

                @Override
                public Void visitMemberSelect(MemberSelectTree t, Void v) {
                    String name = t.getIdentifier().toString();
                    report(getCurrentPath(), name, (int) pos.getEndPosition(cu, t) - name.length());
                    return super.visitMemberSelect(t, v);
                }

                void report(TreePath path, String name, int at) {
                    Element e = trees.getElement(path);
                    if (e == null || at < 0 || name.equals("this") || name.equals("super") || name.equals("class")) {
                        return;
                    }
                    // javac gives `@A("x")` an implicit `value` name where
                    // the source has none.
                    if (at + name.length() > text.length() || !text.subSequence(at, at + name.length()).toString().equals(name)) {
                        return;
                    }
                    switch (e.getKind()) {
                        case PACKAGE, MODULE, LOCAL_VARIABLE, PARAMETER, EXCEPTION_PARAMETER, RESOURCE_VARIABLE, TYPE_PARAMETER -> {
                            return;
                        }
                        default -> {}
                    }
                    Element outer = e;
                    while (outer.getEnclosingElement() != null && !(outer.getEnclosingElement() instanceof PackageElement)) {
                        outer = outer.getEnclosingElement();
                    }
                    if (!(outer instanceof TypeElement type)) {
                        return;
                    }
                    ModuleElement m = elements.getModuleOf(type);
                    String module = m == null ? "" : m.getQualifiedName().toString();
                    if (!module.startsWith("java.") && !module.startsWith("jdk.")) {
                        return;
                    }
                    String pkg = elements.getPackageOf(type).getQualifiedName().toString().replace('.', '/');
                    String declared = e.getKind() == ElementKind.CONSTRUCTOR ? e.getEnclosingElement().getSimpleName().toString() : e.getSimpleName().toString();
                    long line = cu.getLineMap().getLineNumber(at);
                    long lineStart = cu.getLineMap().getStartPosition(line);
                    System.out.println(rel + ":" + line + ":" + (at - lineStart + 1) + " " + name + " -> " + module + "/" + pkg + "/" + type.getSimpleName() + ".java " + declared);
                }
            }.scan(cu, null);
        }
    }
}
