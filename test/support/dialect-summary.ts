/**
 * vitest globalSetup: the run's last lines say which dialects were left out because no server
 * answered (test-dialects.ts), and how to run them.
 */
export function setup(): () => void {
  return () => {
    const skipped = (process.env.CORRAL_TEST_SKIPPED_DIALECTS ?? '').split(',').filter((entry) => entry !== '');
    const ran = process.env.CORRAL_TEST_DIALECTS ?? '';
    if (skipped.length === 0) {
      console.log(`dialects: ran on ${ran}`);
      return;
    }
    console.log(`dialects: ran on ${ran}; SKIPPED ${skipped.join(', ')} (nothing answered there).`);
    console.log('  To run them, start PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and MariaDB on 127.0.0.1:3306 (root, no password),');
    console.log('  or point CORRAL_TEST_PG_URL / CORRAL_TEST_MYSQL_URL at yours; CORRAL_TEST_REQUIRE_ALL=1 makes a missing server a failure.');
  };
}
