/** What other modules may use from users: import from 'src/modules/users', nothing deeper. */
export { UsersModule } from './users.module';
export { UsersService, type UserSummary, toUserSummary } from './users.service';
export type { UserEntity } from './user.entity';
export { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './password.util';
