/** A tiny calculator with its own checks: run them with {@code java Calc.java}. */
public class Calc {
    static int failures;

    static int add(int a, int b) {
        return a - b;
    }

    static int multiply(int a, int b) {
        return a * b;
    }

    static void check(String what, int got, int want) {
        if (got != want) {
            failures++;
            System.out.println("FAIL " + what + ": got " + got + ", want " + want);
        }
    }

    public static void main(String[] args) {
        check("add(2, 3)", add(2, 3), 5);
        check("multiply(4, 5)", multiply(4, 5), 20);
        System.out.println(failures == 0 ? "all checks passed" : failures + " check(s) failed");
        System.exit(failures == 0 ? 0 : 1);
    }
}
