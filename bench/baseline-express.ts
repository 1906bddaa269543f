/**
 * The baseline of the webhook-ack figures: a bare Express 5 app on the same Node that parses the
 * same JSON body (same size limit as the service) and answers 200. Run by the bench as a child
 * process; `PORT` from the environment.
 */
import express from 'express';

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/inbound', (req, res) => {
  res.status(200).json({ received: typeof req.body === 'object' });
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
