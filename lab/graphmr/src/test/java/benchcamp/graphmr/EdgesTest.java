package benchcamp.graphmr;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.WritableComparator;
import org.junit.Test;

public class EdgesTest {
  @Test
  public void parsesTabsSpacesAndComments() {
    assertArrayEquals(new long[] {1, 2}, Edges.parse("1\t2"));
    assertArrayEquals(new long[] {10, 20}, Edges.parse("  10   20  "));
    assertArrayEquals(new long[] {3, 4}, Edges.parse("3 4 1 1234567"));
    assertNull(Edges.parse("# FromNodeId ToNodeId"));
    assertNull(Edges.parse("% sym unweighted"));
    assertNull(Edges.parse("   "));
  }

  @Test
  public void refusesMalformedLines() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Edges.parse("7")).getMessage().contains("two node ids"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Edges.parse("a b")).getMessage().contains("'a'"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Edges.parse("1 -2")).getMessage().contains("negative"));
  }

  @Test
  public void sortsDistinctAndIntersects() {
    long[] buf = {5, 1, 5, 3, 1};
    int n = Edges.sortDistinct(buf, buf.length);
    assertArrayEquals(new long[] {1, 3, 5}, Arrays.copyOf(buf, n));
    long[] out = new long[3];
    int k = Edges.intersect(new long[] {1, 3, 5}, 3, new long[] {2, 3, 4, 5}, 4, out);
    assertArrayEquals(new long[] {3, 5}, Arrays.copyOf(out, k));
    assertEquals(0, Edges.intersect(new long[] {1}, 1, new long[] {2}, 1, out));
  }

  private static byte[] bytes(LongPair p) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    p.write(new DataOutputStream(b));
    return b.toByteArray();
  }

  @Test
  public void rawComparatorMatchesNumericOrder() throws IOException {
    WritableComparator c = WritableComparator.get(LongPair.class);
    long[][] pairs = {{0, 1}, {0, 256}, {1, 0}, {255, 3}, {256, 2}, {1L << 40, 7}};
    for (long[] a : pairs) {
      for (long[] b : pairs) {
        LongPair x = new LongPair(a[0], a[1]);
        LongPair y = new LongPair(b[0], b[1]);
        byte[] bx = bytes(x);
        byte[] by = bytes(y);
        assertEquals(Integer.signum(x.compareTo(y)), Integer.signum(c.compare(bx, 0, bx.length, by, 0, by.length)));
      }
    }
    LongPair o = new LongPair();
    o.setOrdered(9, 4);
    assertEquals("4\t9", o.toString());
  }
}
