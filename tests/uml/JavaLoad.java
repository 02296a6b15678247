/* tests/uml/JavaLoad.java — memory and CPU from a JVM, for tests/uml/test_java.sh
 * (compiled by meson when javac is there).
 *
 *   java -cp DIR JavaLoad hog MIB      allocate MIB mebibytes on the heap, 1 MiB at a
 *                                      time, keeping every array and touching each
 *                                      page; print "survived" and exit 0 if all of it
 *                                      was had (an OOM kill ends us by SIGKILL first)
 *   java -cp DIR JavaLoad spin SECONDS burn CPU in one thread for one second, then
 *                                      for SECONDS of wall time; print "cpu_pct P",
 *                                      the JVM's CPU time (all its threads) over the
 *                                      wall time of the second part, in percent
 */
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public class JavaLoad {
	static volatile long sink;

	static int hog(long mib)
	{
		List<byte[]> kept = new ArrayList<>();

		for (long i = 0; i < mib; i++) {
			byte[] b = new byte[1 << 20];

			for (int j = 0; j < b.length; j += 4096)
				b[j] = 0x5a;
			kept.add(b);
		}
		System.out.println("survived");
		return kept.size() == mib ? 0 : 1;
	}

	static void burn(long until)
	{
		long x = 0;

		while (System.nanoTime() < until) {
			for (int i = 0; i < 100000; i++)
				x += i ^ (x >>> 3);
		}
		sink = x;
	}

	static int spin(double seconds)
	{
		com.sun.management.OperatingSystemMXBean os =
			(com.sun.management.OperatingSystemMXBean)
				ManagementFactory.getOperatingSystemMXBean();

		burn(System.nanoTime() + 1000000000L); /* the JIT's work, done */
		long w0 = System.nanoTime(), c0 = os.getProcessCpuTime();
		burn(w0 + (long)(seconds * 1e9));
		long w = System.nanoTime(), c = os.getProcessCpuTime();
		System.out.printf("cpu_pct %.0f%n", 100.0 * (c - c0) / (w - w0));
		return 0;
	}

	public static void main(String[] args)
	{
		int status = 2;

		if (args.length == 2 && args[0].equals("hog"))
			status = hog(Long.parseLong(args[1]));
		else if (args.length == 2 && args[0].equals("spin"))
			status = spin(Double.parseDouble(args[1]));
		else
			System.err.println("usage: JavaLoad hog MIB | spin SECONDS");
		System.exit(status);
	}
}
